/** A meter source URI that cannot be used, with the rule it breaks. */
export class SourceError extends Error {
  constructor(
    source: string,
    /** What is wrong with the URI, without the URI (the rule a user reads). */
    readonly reason: string,
  ) {
    super(`meter.source ${JSON.stringify(source)}: ${reason}`);
    this.name = 'SourceError';
  }
}
