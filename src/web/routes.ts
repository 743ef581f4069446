import { ERROR_REF } from '../http/api-schemas.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import { HttpError } from '../http/errors.js';
import type { Router } from '../http/router.js';
import { registerActionsChoicesRoute } from './actions-choices.js';
import { registerChoicesRoute } from './settings-choices.js';
import { registerLimitsRoute } from './settings-limits.js';
import { loadStaticAssets, type StaticAsset } from './static-assets.js';

/**
 * The page may load only its own files and talk only to its own origin; it may not be framed
 * (clickjacking of the settings forms). Inline styles stay allowed: the chart library sizes its
 * elements through style attributes.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  'frame-ancestors %FRAME%',
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * Framing: refused, except behind Home Assistant's ingress proxy (it sets X-Ingress-Path), which
 * shows the page in a frame of the Home Assistant page on the same origin.
 */
function contentSecurityPolicy(request: IncomingMessage): string {
  const ingress = typeof request.headers['x-ingress-path'] === 'string';
  return CONTENT_SECURITY_POLICY.replace('%FRAME%', ingress ? "'self'" : "'none'");
}

/** Whether Accept-Encoding (RFC 9110 §12.5.3) admits gzip: listed (or `*`) with a q-value above 0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((token) => token.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return allowed;
    if (coding === '*') star = allowed;
  }
  return star;
}

/** If-None-Match (RFC 9110 §13.1.2): weak comparison against the representation's tag, or `*`. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

function serveAsset(asset: StaticAsset, request: IncomingMessage, response: ServerResponse): void {
  const gzip = asset.gzip !== undefined && acceptsGzip(request.headers['accept-encoding']);
  // Each representation has its own strong tag; the gzip one carries a suffix.
  const etag = gzip ? `${asset.etag.slice(0, -1)}-gz"` : asset.etag;
  const headers: string[] = [
    'ETag',
    etag,
    // Revalidate on every load (a firmware update replaces the files); unchanged files cost a 304.
    'Cache-Control',
    'no-cache',
    'Vary',
    'Accept-Encoding',
    'X-Content-Type-Options',
    'nosniff',
  ];
  if (asset.urlPath === '/') {
    headers.push('Content-Security-Policy', contentSecurityPolicy(request), 'Referrer-Policy', 'no-referrer');
  }
  if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  const body = gzip ? asset.gzip! : asset.body;
  headers.push('Content-Type', asset.contentType, 'Content-Length', String(body.length));
  if (gzip) headers.push('Content-Encoding', 'gzip');
  response.writeHead(200, headers);
  response.end(body);
}

/**
 * The web interface at `/`: the single-page app's files from the package, served from
 * memory under the same authentication as the API (the dispatcher checks credentials before it
 * routes, so a browser gets the 401 with the Digest challenge for `/` and every asset and shows
 * its own prompt). ETag / If-None-Match, gzip when the client accepts it.
 */
export function registerWebRoutes(
  router: Router,
  ctx: AppContext,
  assets: readonly StaticAsset[] = loadStaticAssets(),
): void {
  registerChoicesRoute(router);
  registerLimitsRoute(router);
  registerActionsChoicesRoute(router);
  if (!assets.some((asset) => asset.urlPath === '/')) {
    ctx.logger.warn('web interface files not found (run npm run build); GET / answers 503');
    router.add(
      'GET',
      '/',
      () => {
        throw new HttpError(503, 'service_unavailable', 'the web interface is not built (npm run build)');
      },
      {
        doc: {
          summary: 'Web interface (not built)',
          responses: {
            503: { description: 'the web interface is not built (service_unavailable)', schema: ERROR_REF },
          },
        },
      },
    );
    return;
  }
  for (const asset of assets) {
    router.add('GET', asset.urlPath, (request, response) => serveAsset(asset, request.raw, response), {
      asset: true,
      doc: {
        summary: `Web interface: ${asset.urlPath === '/' ? 'the page' : asset.urlPath.slice(1)}`,
        responses: {
          200: {
            description: 'file (gzip when accepted; ETag)',
            contentType: asset.contentType.split(';')[0],
            schema: { type: 'string' },
          },
          304: { description: 'not modified (If-None-Match)' },
        },
      },
    });
  }
}
