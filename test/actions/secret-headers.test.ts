import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { registerActionsRoutes } from '../../src/http/routes/actions.js';
import { registerBackupRoutes } from '../../src/http/routes/backup.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { recordingServer, type RecordedRequest } from './rig.js';

/**
 * Secret request headers (docs/architecture.md#actions): Authorization, Proxy-Authorization, Cookie,
 * X-Api-Key and the headers a request lists in `secret_headers` are write-only, stored with the
 * secrets (0600), and in a backup only when it asks for secrets.
 */

const SECRETS = ['Bearer s3cret-token', 'session=c00kie', 'k3y-value', 'pr0xy', 'my-t0ken'];

async function start(): Promise<{ http: HttpTestContext; stop(): Promise<void> }> {
  let actions: ActionsOutput | undefined;
  const http = await startHttpContext({
    routes: (router, ctx) => {
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      registerActionsRoutes(router, ctx, actions);
      registerBackupRoutes(router, ctx);
    },
  });
  const output = runOutput(http.ctx, actions!);
  await output.start();
  return {
    http,
    async stop() {
      await output.stop();
      await http.close();
    },
  };
}

// The answers are walked by path in assertions; a wrong path fails the assertion.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function call(http: HttpTestContext, method: string, path: string, body?: unknown) {
  const response = await fetch(`${http.baseUrl}${path}`, {
    method,
    ...(body !== undefined
      ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  const text = await response.text();
  return { status: response.status, text, json: text === '' ? undefined : (JSON.parse(text) as Json) };
}

function definition(url: string, authorization = SECRETS[0]!) {
  return {
    actions: [
      {
        id: 'plug',
        requests: [
          {
            http: {
              url: `${url}/on`,
              method: 'POST',
              headers: {
                'Content-Type': 'application/json',
                Authorization: authorization,
                Cookie: SECRETS[1]!,
                'x-api-key': SECRETS[2]!,
                'Proxy-Authorization': SECRETS[3]!,
                'X-My-Token': SECRETS[4]!,
              },
              secret_headers: ['X-My-Token'],
            },
          },
        ],
      },
    ],
  };
}

async function runPlug(
  http: HttpTestContext,
  target: Awaited<ReturnType<typeof recordingServer>>,
): Promise<RecordedRequest> {
  const before = target.requests.length;
  const answer = await call(http, 'POST', '/api/v1/actions/call?id=plug');
  assert.equal(answer.status, 202, answer.text);
  const request = await waitFor(
    'the action request',
    () => target.requests[before],
    (recorded) => recorded !== undefined,
  );
  return request!;
}

test('secret header values are write-only, stored 0600 with the secrets, sent by the action', async () => {
  const target = await recordingServer(200);
  const { http, stop } = await start();
  try {
    const posted = await call(http, 'POST', '/api/v1/actions', definition(target.url));
    assert.equal(posted.status, 200, posted.text);
    for (const secret of SECRETS)
      assert.equal(posted.text.includes(secret), false, 'the answer holds no secret');

    const shown = await call(http, 'GET', '/api/v1/actions');
    assert.equal(shown.status, 200);
    for (const secret of SECRETS) assert.equal(shown.text.includes(secret), false, `GET shows no ${secret}`);
    const shownHttp = shown.json.actions[0].requests[0].http;
    assert.deepEqual(shownHttp.headers, { 'Content-Type': 'application/json' });
    assert.deepEqual(shownHttp.secret_headers_len, {
      Authorization: SECRETS[0]!.length,
      Cookie: SECRETS[1]!.length,
      'x-api-key': SECRETS[2]!.length,
      'Proxy-Authorization': SECRETS[3]!.length,
      'X-My-Token': SECRETS[4]!.length,
    });

    const actionsFile = readFileSync(join(http.stateDir, 'actions.json'), 'utf8');
    for (const secret of SECRETS)
      assert.equal(actionsFile.includes(secret), false, 'actions.json holds no secret');
    const secretsPath = join(http.stateDir, 'secrets.json');
    const secretsFile = readFileSync(secretsPath, 'utf8');
    for (const secret of SECRETS) assert.ok(secretsFile.includes(secret), 'secrets.json holds every value');
    assert.equal(statSync(secretsPath).mode & 0o777, 0o600);

    const sent = await runPlug(http, target);
    assert.equal(sent.headers.authorization, SECRETS[0]);
    assert.equal(sent.headers.cookie, SECRETS[1]);
    assert.equal(sent.headers['x-api-key'], SECRETS[2]);
    assert.equal(sent.headers['proxy-authorization'], SECRETS[3]);
    assert.equal(sent.headers['x-my-token'], SECRETS[4]);
    assert.equal(sent.headers['content-type'], 'application/json');

    // The definition read back from GET, posted again: the stored values stay.
    assert.equal((await call(http, 'POST', '/api/v1/actions', shown.json)).status, 200);
    assert.equal((await runPlug(http, target)).headers.authorization, SECRETS[0]);

    // A header left out of secret_headers and of headers is gone.
    const without = structuredClone(shown.json);
    without.actions[0].requests[0].http.secret_headers = ['Cookie'];
    assert.equal((await call(http, 'POST', '/api/v1/actions', without)).status, 200);
    const after = await runPlug(http, target);
    assert.equal(after.headers.authorization, undefined);
    assert.equal(after.headers.cookie, SECRETS[1]);

    // A bad secret value is named by its field, never echoed.
    const bad = definition(target.url, 'Bearer x\r\nX-Evil: 1');
    const refused = await call(http, 'POST', '/api/v1/actions', bad);
    assert.equal(refused.status, 400);
    assert.equal(refused.text.includes('X-Evil'), false);
    assert.ok(
      refused.json.details.fields.some(
        (issue: { field: string }) => issue.field === 'actions[0].requests[0].http.headers.Authorization',
      ),
    );

    assert.equal((await call(http, 'DELETE', '/api/v1/actions')).status, 204);
    assert.equal(readFileSync(secretsPath, 'utf8').includes(SECRETS[1]!), false, 'DELETE drops the values');
  } finally {
    await stop();
    await target.close();
  }
});

test('secret header values are in a backup only with secrets=true; a restore without them keeps the stored ones', async () => {
  const target = await recordingServer(200);
  const { http, stop } = await start();
  try {
    assert.equal((await call(http, 'POST', '/api/v1/actions', definition(target.url))).status, 200);
    const plain = await call(http, 'GET', '/api/v1/backup');
    assert.equal(plain.status, 200);
    for (const secret of SECRETS)
      assert.equal(plain.text.includes(secret), false, `no ${secret} without secrets`);
    const full = await call(http, 'GET', '/api/v1/backup?secrets=true');
    for (const secret of SECRETS) assert.ok(full.text.includes(secret), `${secret} with secrets=true`);

    // Change the stored token, then restore the backup without secrets: the new token stays.
    assert.equal(
      (await call(http, 'POST', '/api/v1/actions', definition(target.url, 'Bearer n3w'))).status,
      200,
    );
    const restored = await call(http, 'POST', '/api/v1/backup', plain.json);
    assert.equal(restored.status, 200, restored.text);
    assert.equal((await runPlug(http, target)).headers.authorization, 'Bearer n3w');

    // The backup with secrets brings the old token back.
    assert.equal((await call(http, 'POST', '/api/v1/backup', full.json)).status, 200);
    assert.equal((await runPlug(http, target)).headers.authorization, SECRETS[0]);

    // A backup (say, from an older version) with a value written inline: stored with the secrets.
    const inline = structuredClone(plain.json);
    inline.settings.actions.definition = definition(target.url, 'Bearer inl1ne');
    assert.equal((await call(http, 'POST', '/api/v1/backup', inline)).status, 200);
    assert.equal(readFileSync(join(http.stateDir, 'actions.json'), 'utf8').includes('inl1ne'), false);
    assert.equal((await runPlug(http, target)).headers.authorization, 'Bearer inl1ne');
  } finally {
    await stop();
    await target.close();
  }
});
