import type { AppContext } from '../context.js';
import { meterObject } from '../reading/report.js';
import { SYSTEM_SCHEMA } from './api-schemas.js';
import { sendJson } from './respond.js';
import type { Router } from './router.js';
import type { WifiInfoSource } from './wifi-info.js';

/**
 * GET /api/v1/system (spec endpoint 1): device identity, meter state, Wi-Fi link, the states the
 * running services reported, and the meter input counters. Built per request from live values.
 */
export function systemInfo(
  ctx: AppContext,
  wifi: Awaited<ReturnType<WifiInfoSource>>,
): Record<string, unknown> {
  const config = ctx.config.config;
  const now = ctx.now();
  return {
    device: {
      name: config.system.name,
      host_name: config.system.host_name,
      id: ctx.system.id,
      model: ctx.system.model,
      firmware: ctx.system.firmware,
      boot_id: ctx.system.bootId,
      time_since_boot: Math.round((now - ctx.system.bootTime) / 1000),
      license: config.license.type,
    },
    meter: meterObject(ctx.store.meter),
    wifi,
    services: ctx.services.snapshot(),
    counters: { ...ctx.store.counters, reports: ctx.store.reportId },
  };
}

export function registerSystemRoutes(router: Router, ctx: AppContext, wifiInfo: WifiInfoSource): void {
  router.add(
    'GET',
    '/api/v1/system',
    async (_request, response) => {
      sendJson(response, 200, systemInfo(ctx, await wifiInfo()));
    },
    {
      doc: {
        summary: 'System information',
        responses: { 200: { description: 'system information', schema: SYSTEM_SCHEMA } },
      },
    },
  );
}
