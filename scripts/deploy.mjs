// `npm run deploy`: push dist/ with clasp, then point the one web-app deployment at the new code, so the
// webhook URL Typeform calls never changes (created the first time). The npm script builds dist/ first.
//
// clasp 3.4.1 commands and flags used here, each checked against the installed version's --help:
//   clasp push [-f, --force]              "Forcibly overwrites the remote manifest." Without it, a changed
//                                         appsscript.json makes clasp ask, and outside a terminal it skips the push.
//   clasp list-deployments                "List deployment ids of a script"; --json is clasp's global option
//                                         ("--json  Show output in JSON format", `clasp --help`): an array of
//                                         {deploymentId, versionNumber, description}; the HEAD deployment has no versionNumber.
//   clasp create-deployment [-d, --description <description>]   "Deploy a project" (creates a version, then the deployment)
//   clasp update-deployment <deploymentId> [-d, --description <description>] [--json]
//                                         "Updates a deployment for a project to a new version" (creates the version)
// Not logged in, clasp prints "No credentials found."; with no script id, "Project settings not found."
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the deployment id is remembered (gitignored): one per checkout, tied to the script id. */
export const STATE_FILE = '.formqueue-deployment.json';
/** Apps Script keeps at most 200 versions per script (https://developers.google.com/apps-script/guides/versions). */
const MAX_VERSIONS = 200;
const VERSION_WARNING_AT = 180;

export const USAGE = `Usage: npm run deploy [-- options]

Builds dist/ (the npm script does that first), runs \`clasp push --force\`, then updates the web-app
deployment so the webhook URL stays the same (it is created on the first deploy), and prints the URL.

  --deployment-id ID   update this deployment (e.g. one made in the Apps Script editor) and remember it
  --dry-run            check the setup and print the clasp commands without running them
  --help               show this help

Environment: FORMQUEUE_CLASP=path runs that clasp instead of the local node_modules one.`;

/** How to get a script id; `rm .clasp.json` first when one exists (clasp refuses to create over it, empty scriptId or not). */
function createFix(claspJsonExists) {
  return (
    'Either create a new spreadsheet with its bound script:\n' +
    (claspJsonExists ? '    rm .clasp.json        (clasp create refuses to run while a .clasp.json exists, even with an empty scriptId)\n' : '') +
    '    npx clasp create --type sheets --title formqueue --rootDir dist\n' +
    '  or attach to an existing spreadsheet: open it, Extensions → Apps Script → Project Settings, copy the\n' +
    '  Script ID and paste it into .clasp.json: {"scriptId": "<that id>", "rootDir": "dist"}'
  );
}

const LOGIN_FIX = 'clasp is not logged in to your Google account. Run:\n    npx clasp login\n  then run `npm run deploy` again.';

const API_FIX =
  'The Apps Script API is off for your Google account: turn it on at https://script.google.com/home/usersettings ' +
  '(a minute may pass before it takes effect), then run `npm run deploy` again.';

/** A problem the user can fix; printed without a stack, exit code 1. */
export class DeployError extends Error {}

/** @param {string} id */
export function execUrl(id) {
  return `https://script.google.com/macros/s/${id}/exec`;
}

/** The clasp to run: FORMQUEUE_CLASP, else the devDependency run with this node (the same on every OS). */
function claspCommand(env) {
  const override = env.FORMQUEUE_CLASP;
  if (override) return /\.[cm]?js$/.test(override) ? [process.execPath, override] : [override];
  const pkgPath = join(REPO_ROOT, 'node_modules', '@google', 'clasp', 'package.json');
  if (!existsSync(pkgPath)) throw new DeployError('clasp is not installed here: run `npm install` first (it is a devDependency).');
  const bin = JSON.parse(readFileSync(pkgPath, 'utf8')).bin;
  return [process.execPath, join(dirname(pkgPath), typeof bin === 'string' ? bin : bin.clasp)];
}

/** How a command is shown to the user: as they would type it. @param {string[]} args */
function shown(args) {
  return ['npx', 'clasp', ...args].map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg))).join(' ');
}

/** @param {string} cwd */
function readClaspJson(cwd) {
  const path = join(cwd, '.clasp.json');
  if (!existsSync(path)) throw new DeployError(`There is no .clasp.json in ${cwd}, so clasp does not know which script to update.\n  ${createFix(false)}`);
  let config;
  try {
    config = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new DeployError(`.clasp.json is not valid JSON (${/** @type {Error} */ (err).message}). It should look like {"scriptId": "<id>", "rootDir": "dist"}.`);
  }
  const scriptId = typeof config.scriptId === 'string' ? config.scriptId.trim() : '';
  if (scriptId === '') throw new DeployError(`.clasp.json has an empty scriptId, so there is no Apps Script project to push to yet.\n  ${createFix(true)}`);
  const rootDir = String(config.rootDir ?? config.srcDir ?? '.').replace(/^\.\//, '').replace(/\/+$/, '');
  if (rootDir !== 'dist') {
    throw new DeployError(`.clasp.json has rootDir "${config.rootDir ?? ''}": it must be "dist", the build output, or clasp would push the wrong files. Set "rootDir": "dist".`);
  }
  return { scriptId };
}

/** clasp keeps credentials in ~/.clasprc.json (or where clasp_config_auth points: a file or a folder holding one). */
function authFile(env, home = homedir) {
  const configured = env.clasp_config_auth;
  if (configured) {
    const path = resolve(configured);
    return existsSync(path) && statSync(path).isDirectory() ? join(path, '.clasprc.json') : path;
  }
  return join(home(), '.clasprc.json');
}

/** @param {string} cwd */
function checkBuild(cwd) {
  for (const file of ['Code.js', 'appsscript.json']) {
    if (!existsSync(join(cwd, 'dist', file))) throw new DeployError(`dist/${file} is missing: run \`npm run build\` first (\`npm run deploy\` builds for you).`);
  }
}

/** Turns clasp's own error text into the fix; otherwise shows clasp's output as it is. */
function explainFailure(args, result) {
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  if (/No credentials found|not logged in|invalid_grant|invalid_rapt|Please log ?in/i.test(output)) return new DeployError(`${LOGIN_FIX}\n  (clasp said: ${firstLine(output)})`);
  if (/Project settings not found/i.test(output)) return new DeployError(`clasp found no script id (clasp said: ${firstLine(output)}).\n  ${createFix(true)}`);
  if (/Apps Script API/i.test(output) && /usersettings|not enabled|has not been used|disabled/i.test(output)) return new DeployError(`${API_FIX}\n  (clasp said: ${firstLine(output)})`);
  const how = result.error ? `could not be started: ${result.error.message}` : `failed (exit code ${result.status})`;
  return new DeployError(`\`${shown(args)}\` ${how}. clasp's output:\n${indent(output || '(none)')}`);
}

/** @param {string} text */
function firstLine(text) {
  return text.split('\n').find((line) => line.trim() !== '')?.trim() ?? '';
}

/** @param {string} text */
function indent(text) {
  return text.split('\n').map((line) => `  | ${line}`).join('\n');
}

/**
 * Deployments as clasp lists them: JSON with --json; the text form ("- <id> @<version> - <description>") as a fallback.
 * @param {string} stdout @returns {{ deploymentId: string, versionNumber?: number, description?: string }[]}
 */
export function parseDeployments(stdout) {
  const start = stdout.indexOf('[');
  if (start >= 0) {
    try {
      const list = JSON.parse(stdout.slice(start));
      if (Array.isArray(list)) return list.filter((d) => d && typeof d.deploymentId === 'string');
    } catch {
      // fall through to the text form
    }
  }
  const found = [];
  for (const line of stdout.split('\n')) {
    const match = /^-\s+(\S+)\s+@(HEAD|\d+)(?:\s+-\s+(.*))?$/.exec(line.trim());
    if (match) found.push({ deploymentId: match[1], versionNumber: match[2] === 'HEAD' ? undefined : Number(match[2]), description: match[3] });
  }
  return found;
}

/** The deployment create/update printed: JSON with --json, or "Deployed|Redeployed <id> @<version>". @param {string} stdout */
export function parseDeployment(stdout) {
  const start = stdout.indexOf('{');
  if (start >= 0) {
    try {
      const value = JSON.parse(stdout.slice(start));
      if (value && typeof value.deploymentId === 'string') return value;
    } catch {
      // fall through
    }
  }
  const match = /(?:Re)?[Dd]eployed\s+(\S+)\s+@(HEAD|\d+)/.exec(stdout);
  return match ? { deploymentId: match[1], versionNumber: match[2] === 'HEAD' ? undefined : Number(match[2]) } : null;
}

/** @param {string} cwd @param {string} scriptId */
function readState(cwd, scriptId) {
  try {
    const state = JSON.parse(readFileSync(join(cwd, STATE_FILE), 'utf8'));
    // A file left from another script (a new `clasp create`) names a deployment that is not this script's.
    return state && state.scriptId === scriptId && typeof state.deploymentId === 'string' && state.deploymentId !== '' ? state : null;
  } catch {
    return null;
  }
}

/**
 * Which deployment to update, never a guess: the one asked for, else the remembered one, else the only
 * versioned one; with several and none remembered it refuses and lists them (a bound script always has a
 * HEAD deployment too: it serves /dev, never the webhook). `deployment: null` → create one.
 * `sameUrl` is true only when the deployment updated is the one this checkout deployed last, so the
 * printed "the URL is the same" is a fact, not a hope.
 * @param {{ deploymentId: string, versionNumber?: number, description?: string }[]} deployments
 * @param {string | undefined} asked @param {string | null} remembered
 * @returns {{ deployment: { deploymentId: string, versionNumber?: number, description?: string } | null, why: string, sameUrl: boolean }}
 */
export function chooseDeployment(deployments, asked, remembered) {
  const versioned = deployments.filter((d) => typeof d.versionNumber === 'number');
  if (asked) {
    const hit = deployments.find((d) => d.deploymentId === asked);
    if (!hit) throw new DeployError(`--deployment-id ${asked} is not a deployment of this script.\n${listing(versioned)}`);
    if (typeof hit.versionNumber !== 'number') throw new DeployError(`${asked} is the HEAD deployment (the /dev URL, for testing by editors); a webhook needs a versioned deployment.\n${listing(versioned)}`);
    return { deployment: hit, why: 'as asked with --deployment-id', sameUrl: asked === remembered };
  }
  if (remembered) {
    const hit = versioned.find((d) => d.deploymentId === remembered);
    if (hit) return { deployment: hit, why: `remembered in ${STATE_FILE}`, sameUrl: true };
    if (versioned.length > 0) {
      throw new DeployError(`the deployment remembered in ${STATE_FILE} (${remembered}) no longer exists, so the webhook URL Typeform has is dead.\n${listing(versioned)}`);
    }
    return { deployment: null, why: `the remembered deployment ${remembered} no longer exists and there is no other`, sameUrl: false };
  }
  if (versioned.length === 0) return { deployment: null, why: 'this script has no web-app deployment yet', sameUrl: false };
  if (versioned.length === 1) return { deployment: versioned[0], why: 'the only versioned deployment of this script', sameUrl: false };
  throw new DeployError(`this script has ${versioned.length} versioned deployments and ${STATE_FILE} names none of them, so deploy will not guess which one Typeform calls.\n${listing(versioned)}`);
}

/** The deployments to choose from, newest version first, with the flag that picks one. @param {{ deploymentId: string, versionNumber?: number, description?: string }[]} versioned */
function listing(versioned) {
  if (versioned.length === 0) return '  This script has no versioned deployment: leave out --deployment-id and one is created.';
  const rows = versioned.slice().sort((a, b) => Number(b.versionNumber) - Number(a.versionNumber))
    .map((d) => `    ${d.deploymentId}  @${d.versionNumber}${d.description ? `  ${d.description}` : ''}\n      ${execUrl(d.deploymentId)}`);
  return `  Versioned deployments (the one Typeform calls is the one whose URL is in its webhook settings):\n${rows.join('\n')}\n`
    + '  Choose one: npm run deploy -- --deployment-id <id>';
}

/**
 * What `npm run deploy` would do, without running anything: the checks already passed, the login, the clasp commands
 * and the webhook URL. Exit code 0 even when not logged in (it says so): the plan is the point of a dry run.
 * @param {(line: string) => void} log
 * @param {{ scriptId: string, loggedIn: boolean, auth: string, target?: string, description: string }} plan
 */
function printPlan(log, plan) {
  log(`dry run: script ${plan.scriptId}; nothing is run. .clasp.json and dist/ are ready.`);
  log(plan.loggedIn ? `clasp login: found (${plan.auth}).` : `clasp login: none yet (no ${plan.auth}); a real deploy stops here until you run \`npx clasp login\`.`);
  log(`would run: ${shown(['list-deployments', '--json'])}`);
  log(`would run: ${shown(['push', '--force'])}`);
  if (plan.target) {
    log(`would run: ${shown(['update-deployment', plan.target, '--description', plan.description, '--json'])}`);
    log(`webhook URL: ${execUrl(plan.target)}?token=<WEBHOOK_TOKEN> (an updated deployment keeps its URL)`);
  } else {
    log(`would run: ${shown(['create-deployment', '--description', plan.description, '--json'])}`);
    log('  (or update-deployment <id> if list-deployments shows exactly one versioned deployment; with several, deploy stops and lists them)');
    log('webhook URL: printed after the deploy (https://script.google.com/macros/s/<deploymentId>/exec); put it into Typeform with ?token=<WEBHOOK_TOKEN>');
  }
  return 0;
}

/** What the program gets from its process, where `io` does not say otherwise. @param {Parameters<typeof main>[1] & {}} io */
function withDefaults(io) {
  return {
    cwd: io.cwd ?? process.cwd(),
    env: io.env ?? process.env,
    log: io.log ?? ((line) => console.log(line)),
    now: io.now ?? (() => new Date()),
    error: io.error ?? ((line) => console.error(line)),
    home: io.home ?? homedir,
    spawn: io.spawn ?? spawnSync,
  };
}

/**
 * `io` replaces what the process gives (folder, environment, output, clock, home folder, how clasp is started): the
 * CLI passes none; test/scripts/deploy.test.ts runs most cases in its own process this way (a Node start per case and
 * per clasp call was most of its CPU) and one through the CLI with real processes.
 * @param {string[]} argv
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void, error?: (line: string) => void, now?: () => Date, home?: () => string, spawn?: typeof spawnSync }} [io]
 * @returns {number} exit code
 */
export function main(argv, io = {}) {
  const { cwd, env, log, now, error, home, spawn } = withDefaults(io);
  let values;
  try {
    ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: {
      'dry-run': { type: 'boolean' }, 'deployment-id': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    } }));
  } catch (err) {
    error(`error: ${/** @type {Error} */ (err).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    log(USAGE);
    return 0;
  }
  const dryRun = Boolean(values['dry-run']);
  try {
    const { scriptId } = readClaspJson(cwd);
    checkBuild(cwd);
    const loggedIn = existsSync(authFile(env, home));
    const state = readState(cwd, scriptId);
    const description = `formqueue ${now().toISOString()}`;
    // The plan needs no login and no clasp: it is what a new operator reads before either exists.
    if (dryRun) return printPlan(log, { scriptId, loggedIn, auth: authFile(env, home), target: values['deployment-id'] ?? state?.deploymentId, description });
    if (!loggedIn) throw new DeployError(`${LOGIN_FIX}\n  (no ${authFile(env, home)}: that is where \`npx clasp login\` keeps the credentials)`);
    const clasp = claspCommand(env);

    /** @param {string[]} args @returns {string} stdout */
    const run = (args) => {
      log(`$ ${shown(args)}`);
      const result = spawn(clasp[0], [...clasp.slice(1), ...args], { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (result.error || result.status !== 0) throw explainFailure(args, result);
      return result.stdout ?? '';
    };

    // Decide first: a refusal must leave the script as it was (a push alone already changes what triggers run).
    const deployments = parseDeployments(run(['list-deployments', '--json']));
    const { deployment, why, sameUrl } = chooseDeployment(deployments, values['deployment-id'], state?.deploymentId ?? null);

    const pushed = run(['push', '--force']);
    if (/Skipping push/i.test(pushed)) throw new DeployError(`clasp skipped the push:\n${indent(pushed.trim())}`);
    if (pushed.trim() !== '') log(indent(pushed.trim()));

    let result;
    if (deployment) {
      log(`updating deployment ${deployment.deploymentId} (${why})`);
      result = parseDeployment(run(['update-deployment', deployment.deploymentId, '--description', description, '--json']));
      if (result && result.deploymentId !== deployment.deploymentId) result = { ...result, deploymentId: deployment.deploymentId };
    } else {
      log(`creating the web-app deployment (${why})`);
      result = parseDeployment(run(['create-deployment', '--description', description, '--json']));
    }
    if (!result) throw new DeployError('clasp finished but printed no deployment id; run `npx clasp list-deployments` to see what exists.');

    const url = execUrl(result.deploymentId);
    writeFileSync(join(cwd, STATE_FILE), `${JSON.stringify({ scriptId, deploymentId: result.deploymentId, versionNumber: result.versionNumber ?? null, url, deployedAt: now().toISOString() }, null, 2)}\n`);
    log('');
    log(`deployed: version ${result.versionNumber ?? '?'} of script ${scriptId}`);
    log(`webhook URL: ${url}`);
    log(`  Typeform needs it with the token: ${url}?token=<WEBHOOK_TOKEN>`);
    log('  (WEBHOOK_TOKEN is in the Apps Script editor: Project Settings → Script Properties; Set up / repair creates it.)');
    if (sameUrl) log('  The URL is the same as before: nothing to change in Typeform.');
    else if (deployment) log(`  This deployment's URL did not change, but it is not the one ${STATE_FILE} remembered: check that Typeform's webhook (Connect → Webhooks) has exactly this URL.`);
    else log('  New URL: put it into Typeform (Connect → Webhooks).');
    const version = Number(result.versionNumber);
    if (version >= VERSION_WARNING_AT) log(`  This is version ${version}; a script keeps at most ${MAX_VERSIONS} versions, and then deploys fail. Unless you already did, delete old versions in the Apps Script editor (Project history); never delete or archive this deployment.`);
    log(`  Check it: npm run replay -- --url '${url}?token=<WEBHOOK_TOKEN>' test/fixtures/typeform/test-request.json`);
    return 0;
  } catch (err) {
    if (!(err instanceof DeployError)) throw err;
    error(`error: ${err.message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
