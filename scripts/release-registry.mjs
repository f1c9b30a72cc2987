// A throw-away npm registry for the release test (scripts/release.test.mjs): verdaccio on a free loopback
// port with its storage in a temp folder. It serves @xsb/* only from what is published to it, and fetches
// every other package from the registry npm is configured with here (its uplink). Publishing needs a token:
// one user is added to the registry's own htpasswd file and its token goes into a temp npmrc, never into the
// repository or the user's ~/.npmrc.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const repo = join(import.meta.dirname, '..');

/** Runs a command to its end; throws with its output when it exits non-zero. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}

/**
 * `run` without blocking: the child writes to a log file (not a pipe another step could leave unread), and the
 * promise rejects with that log when it fails. Independent installs and typedoc overlap this way.
 */
export function runInBackground(command, args, options = {}) {
  const log = `${options.logFile}`;
  const fd = openSync(log, 'w');
  const child = spawn(command, args, { ...options, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const output = readFileSync(log, 'utf8');
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}\n${output}`));
    });
  });
}

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The registry npm uses on this machine: the uplink for every package that is not @xsb/*. */
function upstreamRegistry() {
  const configured = run('npm', ['config', 'get', 'registry']).trim();
  return configured.endsWith('/') ? configured : `${configured}/`;
}

function verdaccioConfig(dir) {
  return [
    `storage: ${join(dir, 'storage')}`,
    'auth:',
    '  htpasswd:',
    `    file: ${join(dir, 'htpasswd')}`,
    'uplinks:',
    '  upstream:',
    `    url: ${upstreamRegistry()}`,
    '    timeout: 60s',
    'packages:',
    "  '@xsb/*':",
    '    access: $all',
    '    publish: $authenticated',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    '    proxy: upstream',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n');
}

async function waitUntilUp(url, child, output) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited ${child.exitCode}\n${output()}`);
    try {
      if ((await fetch(`${url}-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`verdaccio did not answer on ${url} within 60 s\n${output()}`);
}

/**
 * GET `path` of the registry as JSON (null on 404). Retried once on a socket error: the pool may hand out a
 * keep-alive socket the registry closed while the test was busy elsewhere (undici: "other side closed").
 */
export async function registryJson(url, path) {
  let response;
  try {
    response = await fetch(`${url}${path}`);
  } catch {
    response = await fetch(`${url}${path}`);
  }
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`GET ${url}${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Adds a user to the registry (as `npm adduser` does) and returns its token. */
async function addUser(url) {
  const name = 'xsb-release-test';
  const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: 'local-registry-only', type: 'user', roles: [] }),
  });
  const body = await response.json();
  if (!response.ok || !body.token) throw new Error(`adding a user failed: ${JSON.stringify(body)}`);
  return body.token;
}

/**
 * Starts verdaccio with its files in `dir`. Returns its URL, the env that points npm and pnpm at it
 * (registry, temp npmrc with the token, temp npm cache) and `stop()`.
 */
export async function startRegistry(dir) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  writeFileSync(join(dir, 'config.yaml'), verdaccioConfig(dir));
  const bin = join(repo, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const child = spawn(
    process.execPath,
    [bin, '--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  const stop = () => (child.exitCode === null ? child.kill() : undefined);
  try {
    await waitUntilUp(url, child, () => log);
    const token = await addUser(url);
    const npmrc = join(dir, 'npmrc');
    writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    const env = {
      ...process.env,
      npm_config_registry: url,
      npm_config_userconfig: npmrc,
      npm_config_cache: join(dir, 'npm-cache'),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      // Native addons build against the local Node: its headers cannot be downloaded here.
      // biome-ignore lint/suspicious/noUndeclaredEnvVars: an npm setting passed through, no turbo task input
      npm_config_nodedir: process.env.npm_config_nodedir ?? join(process.execPath, '..', '..'),
    };
    return { url, env, stop, log: () => log };
  } catch (error) {
    stop();
    throw error;
  }
}
