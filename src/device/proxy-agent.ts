import type { Agent } from 'node:http';
import type { Agent as TlsAgent } from 'node:https';

/**
 * The proxy for an outgoing request, from the environment as curl and most tools read it:
 * `HTTP_PROXY` for http:// targets, `HTTPS_PROXY` for https:// targets (lower-case names too, which
 * win), and `NO_PROXY`, a comma-separated list of host names, domain suffixes (`.example.org` or
 * `example.org` both match its subdomains), `host:port` entries, or `*` for no proxy at all.
 */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv): string | undefined {
  const https = target.protocol === 'https:';
  const proxy = https ? (env.https_proxy ?? env.HTTPS_PROXY) : (env.http_proxy ?? env.HTTP_PROXY);
  if (!proxy) return undefined;
  const noProxy = (env.no_proxy ?? env.NO_PROXY ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = target.port || (https ? '443' : '80');
  const bypassed = noProxy.some((entry) => {
    if (entry === '*') return true;
    const [name, entryPort] = entry.startsWith('[')
      ? [entry.slice(1, entry.indexOf(']')), entry.slice(entry.indexOf(']') + 2) || undefined]
      : (entry.split(':') as [string, string | undefined]);
    if (entryPort !== undefined && entryPort !== port) return false;
    const suffix = name.replace(/^\*?\./, '');
    return host === suffix || host.endsWith(`.${suffix}`);
  });
  return bypassed ? undefined : proxy;
}

export interface ProxyAgents {
  http?: Agent;
  https?: TlsAgent;
}

/**
 * Agents that send the request through the proxy the environment names for `target` (plain
 * forwarding for http://, CONNECT for https://), or none. The proxy agent package loads only when a
 * proxy is set.
 */
export async function proxyAgentsFor(target: URL, env: NodeJS.ProcessEnv): Promise<ProxyAgents> {
  const proxy = proxyFor(target, env);
  if (!proxy) return {};
  const { HttpProxyAgent, HttpsProxyAgent } = await import('hpagent');
  return target.protocol === 'https:'
    ? { https: new HttpsProxyAgent({ proxy, keepAlive: true }) }
    : { http: new HttpProxyAgent({ proxy, keepAlive: true }) };
}
