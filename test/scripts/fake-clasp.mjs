// A fake clasp for test/scripts/deploy.test.ts: records its argv (one JSON line per call) and answers like clasp 3.4.1 does with --json; state in a JSON file.
// Run as a program (FORMQUEUE_CLASP=this file) it is the clasp deploy.mjs starts; imported, fakeClasp answers in-process.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * One clasp call: what it prints and its exit code. FAKE_CLASP_STATE (the deployments, the next version, a failure per
 * command) and FAKE_CLASP_LOG (the calls) come from `env`.
 * @param {string[]} args @param {NodeJS.ProcessEnv} env @returns {{ status: number, stdout: string, stderr: string }}
 */
export function fakeClasp(args, env) {
  const statePath = String(env.FAKE_CLASP_STATE);
  const state = JSON.parse(readFileSync(statePath, 'utf8'));
  appendFileSync(String(env.FAKE_CLASP_LOG), JSON.stringify(args) + '\n');
  const fail = (state.fail || {})[args[0]];
  if (fail) return { status: 1, stdout: '', stderr: fail + '\n' };
  const option = (name) => { const at = args.indexOf(name); return at < 0 ? undefined : args[at + 1]; };
  const nextVersion = () => (state.version = (state.version || 0) + 1);
  let stdout;
  switch (args[0]) {
    case 'push':
      stdout = 'Pushed 2 files at 12:00:00.\n└─ dist/Code.js\n└─ dist/appsscript.json\n';
      break;
    case 'list-deployments':
      stdout = JSON.stringify(state.deployments, null, 2) + '\n';
      break;
    case 'create-deployment': {
      const d = { deploymentId: 'AKfycbNEWdeployment000', versionNumber: nextVersion(), description: option('--description') };
      state.deployments.push(d);
      stdout = JSON.stringify(d, null, 2) + '\n';
      break;
    }
    case 'update-deployment': {
      const d = state.deployments.find((x) => x.deploymentId === args[1]);
      if (!d) return { status: 1, stdout: '', stderr: 'Requested entity was not found.\n' };
      d.versionNumber = nextVersion();
      d.description = option('--description');
      stdout = JSON.stringify(d, null, 2) + '\n';
      break;
    }
    default:
      return { status: 1, stdout: '', stderr: "error: unknown command '" + args[0] + "'\n" };
  }
  writeFileSync(statePath, JSON.stringify(state));
  return { status: 0, stdout, stderr: '' };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { status, stdout, stderr } = fakeClasp(process.argv.slice(2), process.env);
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = status;
}
