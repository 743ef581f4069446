import type { BusLine } from './rtu-bus.js';

/**
 * One claim on a serial device (docs/architecture.md#shared-rs485-bus): a meter source or an export
 * limiter inverter that opens `path`. A Modbus RTU unit carries its line and unit id; any other
 * use of the device (a P1 or optical meter) carries neither.
 */
export interface PortClaim {
  /** The setting that makes the claim, as a problem names it (`meters[1].source`). */
  field: string;
  path: string;
  rtu?: { line: BusLine; unit: number; what: 'polls' | 'drives' };
}

function lineText(claim: PortClaim): string {
  if (!claim.rtu) return 'a serial source';
  const { baudRate, parity, stopBits } = claim.rtu.line;
  return `${baudRate} baud, parity ${parity}, ${stopBits} stop bit(s)`;
}

/**
 * Several claims on one serial device: only Modbus RTU units may share it (one RS485 bus, one
 * opener), with the same line settings and different unit ids; a meter and an inverter on one
 * bus are units like any other, so a limiter's writes can never reach a meter's unit.
 */
export function portProblems(claims: readonly PortClaim[]): string[] {
  const problems: string[] = [];
  const byPort = new Map<string, PortClaim>();
  const units = new Map<string, PortClaim>();
  for (const claim of claims) {
    const first = byPort.get(claim.path);
    if (!first) {
      byPort.set(claim.path, claim);
    } else if (!first.rtu || !claim.rtu) {
      problems.push(
        `${claim.field} and ${first.field} both open ${claim.path}; only modbus-rtu: sources share a port`,
      );
      continue;
    } else if (lineText(first) !== lineText(claim)) {
      problems.push(
        `${claim.field} (${lineText(claim)}) and ${first.field} (${lineText(first)}) claim ${claim.path} with different line settings`,
      );
      continue;
    }
    if (!claim.rtu) continue;
    const unitKey = `${claim.path}#${claim.rtu.unit}`;
    const sameUnit = units.get(unitKey);
    if (sameUnit)
      problems.push(
        `${claim.field} and ${sameUnit.field} both ${claim.rtu.what === 'drives' || sameUnit.rtu?.what === 'drives' ? 'use' : 'poll'} unit ${claim.rtu.unit} on ${claim.path}`,
      );
    else units.set(unitKey, claim);
  }
  return problems;
}
