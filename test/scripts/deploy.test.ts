// scripts/deploy.mjs against a fake clasp: nothing here reaches Google, so only the local decisions are tested —
// the errors that name their fix, create on the first deploy and update afterwards, the printed /exec URL. One case runs
// the program (Node processes for deploy.mjs and the fake clasp); the rest call its main in-process with the same
// folder, environment and fake, because two or more Node starts per case were most of this file's CPU.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../scripts/deploy.mjs';
import { fakeClasp } from './fake-clasp.mjs';

const DEPLOY = new URL('../../scripts/deploy.mjs', import.meta.url).pathname;
const SCRIPT_ID = '1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijklmnopqr';

/** The fake clasp (fake-clasp.mjs): the program deploy.mjs starts, or the same answers given in-process. */
const FAKE_CLASP = new URL('./fake-clasp.mjs', import.meta.url).pathname;

interface Deployment {
  deploymentId: string;
  versionNumber?: number;
  description?: string;
}

interface FakeState {
  deployments: Deployment[];
  version?: number;
  fail?: Record<string, string>;
}

let dir: string;

function setUp(options: { scriptId?: string; rootDir?: string; loggedIn?: boolean; built?: boolean; state?: FakeState } = {}): void {
  writeFileSync(join(dir, '.clasp.json'), JSON.stringify({ scriptId: options.scriptId ?? SCRIPT_ID, rootDir: options.rootDir ?? 'dist' }));
  if (options.built ?? true) {
    mkdirSync(join(dir, 'dist'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'Code.js'), 'function doPost() {}\n');
    writeFileSync(join(dir, 'dist', 'appsscript.json'), '{}\n');
  }
  mkdirSync(join(dir, 'home'), { recursive: true });
  if (options.loggedIn ?? true) writeFileSync(join(dir, 'home', '.clasprc.json'), '{"tokens":{}}');
  writeFileSync(join(dir, 'state.json'), JSON.stringify(options.state ?? { deployments: [{ deploymentId: 'AKfycbHEADdeployment', description: '' }] }));
  writeFileSync(join(dir, 'calls.log'), '');
}

interface DeployRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

function deployEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'home'), USERPROFILE: join(dir, 'home') };
  delete env.clasp_config_auth;
  env.FORMQUEUE_CLASP = FAKE_CLASP;
  env.FAKE_CLASP_STATE = join(dir, 'state.json');
  env.FAKE_CLASP_LOG = join(dir, 'calls.log');
  return env;
}

/** `npm run deploy` as a program: deploy.mjs started by Node, clasp (the fake) started by it. */
function deployCli(...args: string[]): DeployRun {
  const result = spawnSync(process.execPath, [DEPLOY, ...args], { cwd: dir, env: deployEnv(), encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * deploy.mjs's main in this process, with what the program would get (its folder, environment, home folder, output)
 * and clasp answered by the same fake in-process: the command deploy.mjs would start must still be the fake's (Node
 * running FORMQUEUE_CLASP). What main prints reaches stdout/stderr as console.log/console.error would write it.
 */
function deploy(...args: string[]): DeployRun {
  const out: string[] = [], err: string[] = [];
  const spawn = (command: string, argv: readonly string[], options: { env: NodeJS.ProcessEnv }) => {
    if (command !== process.execPath || argv[0] !== FAKE_CLASP) throw new Error(`deploy started ${command} ${argv.join(' ')}, not the fake clasp`);
    return { ...fakeClasp(argv.slice(1), options.env), error: undefined };
  };
  const env = deployEnv();
  const status = main(args, { cwd: dir, env, home: () => String(env.HOME), log: (line) => out.push(`${line}\n`), error: (line) => err.push(`${line}\n`), spawn: spawn as never });
  return { status, stdout: out.join(''), stderr: err.join('') };
}

function calls(): string[][] {
  return readFileSync(join(dir, 'calls.log'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as string[]);
}

function remembered(): { scriptId: string; deploymentId: string; url: string } {
  return JSON.parse(readFileSync(join(dir, '.formqueue-deployment.json'), 'utf8'));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'formqueue-deploy-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('deploy: errors that name their fix, before clasp runs', () => {
  it('an empty scriptId names clasp create (after removing .clasp.json) and the paste-the-id fix', () => {
    setUp({ scriptId: '' });
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('.clasp.json has an empty scriptId');
    expect(run.stderr).toContain('rm .clasp.json');
    expect(run.stderr).toContain('npx clasp create --type sheets --title formqueue --rootDir dist');
    expect(run.stderr).toContain('Project Settings');
    expect(calls()).toEqual([]);
  });

  it('no .clasp.json at all names clasp create without the rm step', () => {
    setUp();
    rmSync(join(dir, '.clasp.json'));
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npx clasp create --type sheets --title formqueue --rootDir dist');
    expect(run.stderr).not.toContain('rm .clasp.json');
    expect(calls()).toEqual([]);
  });

  it('not logged in (no ~/.clasprc.json) names npx clasp login', () => {
    setUp({ loggedIn: false });
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npx clasp login');
    expect(run.stderr).toContain('.clasprc.json');
    expect(calls()).toEqual([]);
  });

  it("clasp's own auth error (expired credentials) names npx clasp login", () => {
    setUp({ state: { deployments: [], fail: { push: 'No credentials found.' } } });
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npx clasp login');
    expect(run.stderr).toContain('No credentials found.');
    expect(calls()).toEqual([['list-deployments', '--json'], ['push', '--force']]);
  });

  it('the Apps Script API switched off names the user settings page', () => {
    setUp({ state: { deployments: [], fail: { push: 'User has not enabled the Apps Script API. Enable it by visiting https://script.google.com/home/usersettings then retry.' } } });
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('https://script.google.com/home/usersettings');
  });

  it('a failing clasp push shows its output and deploys nothing', () => {
    setUp({ state: { deployments: [], fail: { push: 'Syntax error: SyntaxError: Unexpected token line: 12 file: Code.gs' } } });
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('`npx clasp push --force` failed (exit code 1)');
    expect(run.stderr).toContain('Syntax error: SyntaxError: Unexpected token line: 12 file: Code.gs');
    expect(calls()).toEqual([['list-deployments', '--json'], ['push', '--force']]);
    expect(existsSync(join(dir, '.formqueue-deployment.json'))).toBe(false);
  });

  it('a rootDir other than dist is refused (clasp would push the sources)', () => {
    setUp({ rootDir: 'src' });
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('"rootDir": "dist"');
    expect(calls()).toEqual([]);
  });

  it('a missing build says to build first', () => {
    setUp({ built: false });
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm run build');
    expect(calls()).toEqual([]);
  });

  it('an unknown option is a usage error', () => {
    setUp();
    const run = deploy('--bogus');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Usage: npm run deploy');
  });
});

describe('deploy: push, then create once and update afterwards', () => {
  // Through the program (deploy.mjs and clasp as processes), so the CLI itself is proven: its exit code, output, spawn.
  it('the first deploy pushes, creates the deployment, prints its /exec URL and remembers it', () => {
    setUp();
    const run = deployCli();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const made = calls();
    expect(made.map((args) => args[0])).toEqual(['list-deployments', 'push', 'create-deployment']);
    expect(made[0]).toEqual(['list-deployments', '--json']);
    expect(made[1]).toEqual(['push', '--force']);
    expect(made[2]).toEqual(['create-deployment', '--description', expect.stringMatching(/^formqueue \d{4}-\d\d-\d\dT/), '--json']);
    expect(run.stdout).toContain('webhook URL: https://script.google.com/macros/s/AKfycbNEWdeployment000/exec');
    expect(run.stdout).toContain('https://script.google.com/macros/s/AKfycbNEWdeployment000/exec?token=<WEBHOOK_TOKEN>');
    expect(run.stdout).toContain('put it into Typeform');
    expect(remembered()).toMatchObject({ scriptId: SCRIPT_ID, deploymentId: 'AKfycbNEWdeployment000', url: 'https://script.google.com/macros/s/AKfycbNEWdeployment000/exec' });
  });

  it('the next deploy updates the same deployment: the URL does not change', () => {
    setUp();
    expect(deploy().status).toBe(0);
    writeFileSync(join(dir, 'calls.log'), '');
    const run = deploy();
    expect(run.status).toBe(0);
    const made = calls();
    expect(made.map((args) => args[0])).toEqual(['list-deployments', 'push', 'update-deployment']);
    expect(made[2].slice(0, 2)).toEqual(['update-deployment', 'AKfycbNEWdeployment000']);
    expect(made[2]).toContain('--json');
    expect(run.stdout).toContain(`remembered in .formqueue-deployment.json`);
    expect(run.stdout).toContain('webhook URL: https://script.google.com/macros/s/AKfycbNEWdeployment000/exec');
    expect(run.stdout).toContain('The URL is the same as before');
    expect(run.stdout).toContain('deployed: version 2');
    const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as FakeState;
    expect(state.deployments.filter((d) => d.versionNumber !== undefined)).toHaveLength(1);
  });

  it('without a remembered id and several versioned deployments, deploy refuses, lists them and pushes nothing', () => {
    setUp({
      state: {
        version: 7,
        deployments: [
          { deploymentId: 'AKfycbHEADdeployment' },
          { deploymentId: 'AKfycbOLDER', versionNumber: 3, description: 'made in the editor' },
          { deploymentId: 'AKfycbNEWER', versionNumber: 7, description: 'made in the editor' },
        ],
      },
    });
    const run = deploy();
    expect(run.status).toBe(1);
    expect(calls().map((args) => args[0])).toEqual(['list-deployments']);
    expect(run.stderr).toContain('2 versioned deployments');
    expect(run.stderr).toContain('will not guess');
    expect(run.stderr).toContain('AKfycbOLDER  @3  made in the editor');
    expect(run.stderr).toContain('https://script.google.com/macros/s/AKfycbNEWER/exec');
    expect(run.stderr).not.toContain('AKfycbHEADdeployment');
    expect(run.stderr).toContain('npm run deploy -- --deployment-id <id>');
    expect(existsSync(join(dir, '.formqueue-deployment.json'))).toBe(false);
  });

  it('without a remembered id, the only versioned deployment is updated (never HEAD) and the URL is not called "the same"', () => {
    setUp({ state: { version: 4, deployments: [{ deploymentId: 'AKfycbHEADdeployment' }, { deploymentId: 'AKfycbONLY', versionNumber: 4 }] } });
    const run = deploy();
    expect(run.status).toBe(0);
    expect(calls()[2].slice(0, 2)).toEqual(['update-deployment', 'AKfycbONLY']);
    expect(run.stdout).toContain('the only versioned deployment of this script');
    expect(run.stdout).not.toContain('The URL is the same');
    expect(run.stdout).toContain("check that Typeform's webhook");
    expect(remembered().deploymentId).toBe('AKfycbONLY');
  });

  it('a remembered deployment that was deleted is not replaced by a guess while others exist', () => {
    setUp({ state: { version: 9, deployments: [{ deploymentId: 'AKfycbHEADdeployment' }, { deploymentId: 'AKfycbOTHER', versionNumber: 9 }] } });
    writeFileSync(join(dir, '.formqueue-deployment.json'), JSON.stringify({ scriptId: SCRIPT_ID, deploymentId: 'AKfycbGONE' }));
    const run = deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('AKfycbGONE) no longer exists');
    expect(run.stderr).toContain('AKfycbOTHER');
    expect(calls().map((args) => args[0])).toEqual(['list-deployments']);
  });

  it('near the 200-version limit, deploy says to delete old versions, never the deployment', () => {
    setUp({ state: { version: 184, deployments: [{ deploymentId: 'AKfycbHEADdeployment' }, { deploymentId: 'AKfycbKEPT', versionNumber: 184 }] } });
    writeFileSync(join(dir, '.formqueue-deployment.json'), JSON.stringify({ scriptId: SCRIPT_ID, deploymentId: 'AKfycbKEPT' }));
    const run = deploy();
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('The URL is the same as before');
    expect(run.stdout).toContain('at most 200 versions');
    expect(run.stdout).toContain('never delete or archive this deployment');
  });

  it('--deployment-id picks a deployment; HEAD or an unknown id is refused', () => {
    setUp({ state: { version: 7, deployments: [{ deploymentId: 'AKfycbHEADdeployment' }, { deploymentId: 'AKfycbA', versionNumber: 2 }, { deploymentId: 'AKfycbB', versionNumber: 7 }] } });
    const picked = deploy('--deployment-id', 'AKfycbA');
    expect(picked.status).toBe(0);
    expect(calls()[2].slice(0, 2)).toEqual(['update-deployment', 'AKfycbA']);
    expect(picked.stdout).not.toContain('The URL is the same');
    expect(deploy('--deployment-id', 'AKfycbA').stdout).toContain('The URL is the same as before');
    const head = deploy('--deployment-id', 'AKfycbHEADdeployment');
    expect(head.status).toBe(1);
    expect(head.stderr).toContain('HEAD deployment');
    const unknown = deploy('--deployment-id', 'AKfycbNOPE');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('is not a deployment of this script');
  });

  it('a remembered deployment of another script (a new clasp create) is ignored', () => {
    setUp();
    writeFileSync(join(dir, '.formqueue-deployment.json'), JSON.stringify({ scriptId: 'another-script', deploymentId: 'AKfycbFOREIGN' }));
    const run = deploy();
    expect(run.status).toBe(0);
    expect(calls().map((args) => args[0])).toEqual(['list-deployments', 'push', 'create-deployment']);
    expect(remembered()).toMatchObject({ scriptId: SCRIPT_ID, deploymentId: 'AKfycbNEWdeployment000' });
  });

  it('--dry-run without a clasp login still shows the plan, says the login is missing and what to run, exits 0', () => {
    setUp({ loggedIn: false });
    const run = deploy('--dry-run');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/clasp login: none yet \(no .*\.clasprc\.json\); a real deploy stops here until you run `npx clasp login`/);
    expect(run.stdout).toMatch(/would run: npx clasp list-deployments --json\nwould run: npx clasp push --force/);
    expect(run.stdout).toMatch(/would run: npx clasp create-deployment --description "formqueue [^"]+" --json/);
    expect(run.stdout).toContain('webhook URL: printed after the deploy');
    expect(calls()).toEqual([]);
    // The real deploy still stops at the login, before any clasp command.
    const real = deploy();
    expect(real.status).toBe(1);
    expect(real.stderr).toContain('npx clasp login');
    expect(calls()).toEqual([]);
  });

  it('--dry-run checks the setup and prints the commands without running clasp', () => {
    setUp();
    const first = deploy('--dry-run');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('clasp login: found');
    expect(first.stdout).toMatch(/would run: npx clasp list-deployments --json\nwould run: npx clasp push --force/);
    expect(first.stdout).toMatch(/would run: npx clasp create-deployment --description "formqueue [^"]+" --json/);
    expect(calls()).toEqual([]);

    writeFileSync(join(dir, '.formqueue-deployment.json'), JSON.stringify({ scriptId: SCRIPT_ID, deploymentId: 'AKfycbKNOWN' }));
    const again = deploy('--dry-run');
    expect(again.stdout).toMatch(/would run: npx clasp update-deployment AKfycbKNOWN --description "formqueue [^"]+" --json/);
    expect(again.stdout).toContain('https://script.google.com/macros/s/AKfycbKNOWN/exec?token=<WEBHOOK_TOKEN>');
    expect(calls()).toEqual([]);

    setUp({ scriptId: '' });
    const broken = deploy('--dry-run');
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain('npx clasp create --type sheets --title formqueue --rootDir dist');
  });
});
