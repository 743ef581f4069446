// Modbus register freshness: from the last byte of a DSMR telegram handed to the decoder to the
// slave's registers holding that telegram's values, per profile, over 2,000 telegrams whose import
// power changes every time. The path is the daemon's: decoder.push -> ReadingStore.ingest -> the
// register feed's synchronous rebuild; the time is taken when the register read back over the
// slave's RegisterSpace carries the new value. Target: p99 <= 1 ms.
//
// Run: `npm run build && node dist/bench/modbus-freshness.js` (needs the capture corpus).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc16Arc } from '../src/checksum/crc16.js';
import { crcHex } from '../src/meter/dsmr/crc16-arc.js';
import { createDsmrDecoder } from '../src/meter/dsmr/decoder.js';
import { PROFILE_NAMES, type ProfileName } from '../src/modbus-protocol/profiles/catalogue.js';
import { RegisterFeed } from '../src/modbus/register-feed.js';
import { corpusDir } from '../test/helpers/environment.js';
import { makeContext } from '../test/modbus/fixtures.js';

const TELEGRAMS = 2000;
const WARMUP = 200;

/** The corpus telegram with 1-0:1.7.0 set to `kw` and its CRC recomputed. */
function telegramWithPower(template: string, kw: number): Buffer {
  const body = template.replace(
    /1-0:1\.7\.0\(\d+\.\d+\*kW\)/,
    `1-0:1.7.0(${kw.toFixed(3).padStart(6, '0')}*kW)`,
  );
  const end = body.indexOf('!') + 1;
  const text = body.slice(0, end);
  return Buffer.from(`${text}${crcHex(crc16Arc(Buffer.from(text, 'latin1')))}\r\n`, 'latin1');
}

/** Where each profile holds total active power, and how it reads back. */
const POWER_READERS: Record<ProfileName, (feed: RegisterFeed) => number> = {
  whatwatt: (feed) => read(feed, 'input', 65, 2).readFloatBE(0), // default layout: power.active, scaler 3 (W)
  sdm630: (feed) => read(feed, 'input', 0x0034, 2).readFloatBE(0),
  sdm120: (feed) => read(feed, 'input', 0x000c, 2).readFloatBE(0),
  sdm72: (feed) => read(feed, 'input', 0x0034, 2).readFloatBE(0),
  dtsu666: (feed) => read(feed, 'holding', 0x2012, 2).readFloatBE(0) / 10,
  sunspec: (feed) => {
    const w = read(feed, 'holding', 40088, 5);
    return w.readInt16BE(0) * 10 ** w.readInt16BE(8);
  },
};

function read(feed: RegisterFeed, table: 'input' | 'holding', start: number, quantity: number): Buffer {
  const words = feed.space.read(table, start, quantity);
  if (typeof words === 'number') throw new Error(`exception ${words} reading ${table} ${start}`);
  return words;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

const template = readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5.txt'), 'latin1').replace(/\r?\n/g, '\r\n');
console.log(`Modbus freshness: telegram bytes in -> register holds the new value (${TELEGRAMS} telegrams)`);
console.log('| profile | p50 us | p99 us | max us |');
console.log('|---|---:|---:|---:|');
for (const profile of PROFILE_NAMES) {
  const { ctx, cleanup } = makeContext();
  const feed = new RegisterFeed(ctx, 'bench', () => undefined);
  feed.start({ profile, direction: 'import_positive' });
  const decoder = createDsmrDecoder();
  const readPower = POWER_READERS[profile];
  const times: number[] = [];
  for (let i = 0; i < WARMUP + TELEGRAMS; i++) {
    const kw = 1 + (i % 900) / 1000;
    const bytes = telegramWithPower(template, kw);
    const start = process.hrtime.bigint();
    for (const result of decoder.push(bytes, Date.now())) {
      if (!result.ok) throw new Error(`telegram rejected: ${result.error.message}`);
      ctx.store.ingest(result.reading);
    }
    const power = readPower(feed);
    const elapsed = Number(process.hrtime.bigint() - start) / 1000;
    if (Math.abs(power - (kw * 1000 - (result0(ctx) ?? 0))) > 0.5)
      throw new Error(`${profile}: register reads ${power} W after a telegram of ${kw} kW`);
    if (i >= WARMUP) times.push(elapsed);
  }
  feed.stop();
  cleanup();
  times.sort((a, b) => a - b);
  console.log(
    `| ${profile} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 99).toFixed(0)} | ${times.at(-1)!.toFixed(0)} |`,
  );
}

/** Export power of the latest reading in W (the profiles serve import - export). */
function result0(ctx: ReturnType<typeof makeContext>['ctx']): number | undefined {
  const exported = ctx.store.latest?.values.get('2.7.0')?.value;
  return exported === undefined ? undefined : exported * 1000;
}
