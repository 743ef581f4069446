import type { ActionStatusRecord } from '../contracts/actions.js';
import { CODE } from './status-codes.js';

/** How many execution records are kept; older ones are dropped (their status reads 404). */
export const STATUS_RING_SIZE = 64;

/**
 * The last executions (`ActionStatus` of the device's API): a record per call with a status id
 * counting up from 1, code -1 while it runs, then its code and execution time in seconds.
 */
export class StatusRing {
  private readonly records: ActionStatusRecord[] = [];
  private nextId = 1;

  constructor(private readonly size = STATUS_RING_SIZE) {}

  /** A new record, code -1 (running). */
  open(actionId: string): ActionStatusRecord {
    const record: ActionStatusRecord = {
      action_id: actionId,
      id: this.nextId++,
      code: CODE.running,
      exe_time: 0,
    };
    this.records.push(record);
    if (this.records.length > this.size) this.records.shift();
    return record;
  }

  get(id: number): ActionStatusRecord | undefined {
    return this.records.find((record) => record.id === id);
  }

  /** The newest records first, at most `limit`. */
  latest(limit = this.size): ActionStatusRecord[] {
    return this.records.slice(-limit).reverse();
  }
}
