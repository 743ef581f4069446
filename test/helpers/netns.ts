import { execFileSync, spawn } from 'node:child_process';
import { hasCommand } from './environment.js';

/**
 * Two network namespaces joined by a veth pair (`a` at <prefix>.1, `b` at <prefix>.2, /24), each
 * with its loopback up and multicast routed to the veth: multicast really travels between two
 * hosts, and never leaves the test's namespaces. A string says why they cannot be made here.
 */
export function vethNamespaces(prefix: string): { a: string; b: string; remove: () => void } | string {
  if (process.getuid?.() !== 0) return 'not root';
  if (!hasCommand('ip')) return 'no ip command';
  const tag = `${process.pid % 10000}${Math.floor(Math.random() * 1000)}`;
  const a = `mna${tag}`;
  const b = `mnb${tag}`;
  const run = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  try {
    run('netns', 'add', a);
    run('netns', 'add', b);
    run('link', 'add', `na${tag}`, 'type', 'veth', 'peer', 'name', `nb${tag}`);
    run('link', 'set', `na${tag}`, 'netns', a);
    run('link', 'set', `nb${tag}`, 'netns', b);
    for (const [ns, dev, address] of [
      [a, `na${tag}`, `${prefix}.1/24`],
      [b, `nb${tag}`, `${prefix}.2/24`],
    ] as const) {
      run('-n', ns, 'addr', 'add', address, 'dev', dev);
      run('-n', ns, 'link', 'set', dev, 'up', 'multicast', 'on');
      run('-n', ns, 'link', 'set', 'lo', 'up');
      run('-n', ns, 'route', 'add', '224.0.0.0/4', 'dev', dev);
    }
  } catch (error) {
    for (const ns of [a, b]) spawn('ip', ['netns', 'del', ns]);
    return `cannot create network namespaces: ${(error as Error).message.split('\n')[0]}`;
  }
  return {
    a,
    b,
    remove: () => {
      for (const ns of [a, b]) execFileSync('ip', ['netns', 'del', ns]);
    },
  };
}
