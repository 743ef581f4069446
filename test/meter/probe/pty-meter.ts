import { rmSync } from 'node:fs';
import type { TestContext } from 'node:test';
import type { FakeMeter } from '../transport/fake-meter.js';
import { tempDir } from '../transport/meter-input-harness.js';
import { SocatPty } from '../transport/socat-pty.js';

/** A pty pair whose meter end is driven by `makeMeter` (undefined: a silent line). */
export async function ptyWithMeter(
  t: TestContext,
  makeMeter?: (path: string) => FakeMeter,
): Promise<SocatPty> {
  const dir = tempDir('mg-probe-');
  const pty = new SocatPty(dir);
  await pty.start();
  const meter = makeMeter?.(pty.meterPath);
  meter?.start();
  t.after(async () => {
    await meter?.stop();
    await pty.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return pty;
}
