// Regenerates docs/guide/api-reference.md from the OpenAPI document a daemon on the simulator serves
// (PRO license, so every route is listed): `npm run build && node dist/scripts/api-reference.js`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiReferenceMarkdown, type OpenApiDocument } from '../src/http/api-reference.js';
import { startDaemonProcess } from '../test/helpers/daemon-process.js';
import { repoRoot } from '../test/helpers/environment.js';

const state = mkdtempSync(join(tmpdir(), 'api-reference-'));
const daemon = await startDaemonProcess(state, { METER_GATEWAY_LICENSE_TYPE: 'PRO' });
try {
  const doc = (await (await fetch(`${daemon.baseUrl}/api/v1/openapi.json`)).json()) as OpenApiDocument;
  writeFileSync(join(repoRoot, 'docs', 'guide', 'api-reference.md'), apiReferenceMarkdown(doc));
} finally {
  await daemon.stop();
  rmSync(state, { recursive: true, force: true });
}
