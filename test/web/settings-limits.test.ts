// GET /api/v1/settings/limits: the schema's limits by config path, including the fields of the
// peak guard's stages, so the settings forms never repeat a number the schema holds.
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { PEAK_GUARD_SCHEMA } from '../../src/config/peak-schema.js';
import { SCHEMA } from '../../src/config/schema.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import type { SettingsLimits } from '../../src/contracts/page.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { startHttpContext } from '../helpers/http-context.js';
import { repoRoot } from '../helpers/environment.js';

test('GET /api/v1/settings/limits: ranges, lengths and patterns from the schema, stage fields too, in the OpenAPI document', async () => {
  const http = await startHttpContext({
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      registerWebRoutes(router, ctx, []);
    },
  });
  try {
    const response = await fetch(`${http.baseUrl}/api/v1/settings/limits`);
    assert.equal(response.status, 200);
    const limits = (await response.json()) as SettingsLimits;
    assert.deepEqual(limits['services.peak_guard.limit_kw'], {
      min: PEAK_GUARD_SCHEMA.limit_kw.min,
      max: PEAK_GUARD_SCHEMA.limit_kw.max,
    });
    assert.deepEqual(limits['services.peak_guard.meter'], {
      maxLength: PEAK_GUARD_SCHEMA.meter.maxLength,
      pattern: PEAK_GUARD_SCHEMA.meter.pattern.source,
    });
    // An integer setting steps by 1 (its format's JSON Schema says integer).
    assert.deepEqual(limits['services.report_interval'], {
      min: SCHEMA.services.report_interval.min,
      max: SCHEMA.services.report_interval.max,
      step: 1,
    });
    // The Ethernet form's fields too, under their config paths.
    assert.deepEqual(limits['eth.ip'], limits['wifi.sta.ip']);
    assert.equal(limits['eth.ip']?.maxLength, 15);
    // The stage list's items, from the format the peak guard registers.
    assert.deepEqual(limits['services.peak_guard.stages[].relief_kw'], { min: 0.01, max: 1000 });
    assert.deepEqual(limits['services.peak_guard.stages[].min_on_s'], { min: 0, max: 86_400, step: 1 });
    assert.equal(limits['services.peak_guard.stages[].id']?.maxLength, 15);
    assert.ok(new RegExp(limits['services.peak_guard.stages[].id']!.pattern!).test('ev_1'));
    assert.ok(!new RegExp(limits['services.peak_guard.stages[].id']!.pattern!).test('a b'));
    // Settings boolean or free of limits are absent; so are the daemon's own keys.
    assert.equal(limits['services.peak_guard.enabled'], undefined);
    assert.equal(limits['log.level'], undefined);

    const openapi = (await (await fetch(`${http.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, { get?: { summary?: string } }>;
    };
    assert.match(openapi.paths['/api/v1/settings/limits']?.get?.summary ?? '', /limits of each setting/);
  } finally {
    await http.close();
  }
});

test('the settings forms of the page type no limit of their own: every min, max, length and pattern comes from the API', () => {
  const html = readFileSync(join(repoRoot, 'src/web/ui/index.html'), 'utf8');
  const forms = [...html.matchAll(/<form\b[^>]*data-endpoint="[^"]*"[^>]*>[\s\S]*?<\/form>/g)].map(
    (m) => m[0],
  );
  assert.ok(forms.length >= 8, `only ${forms.length} settings forms found`);
  const typed = forms.flatMap((form) =>
    [
      ...form.matchAll(
        /<(?:input|textarea)\b[^>]*\s(?:min|max|step|maxlength|minlength|pattern)="[^"]*"[^>]*>/g,
      ),
    ].map((m) => m[0].replace(/\s+/g, ' ')),
  );
  assert.deepEqual(typed, []);
});
