/**
 * nmcli terse output (`nmcli -t`, nmcli(1) "--terse" and "--escape"): one record per line, fields
 * separated by ':'. With escaping on (the default in terse mode) a ':' or '\' inside a value is
 * written as '\:' or '\\'. BSSIDs therefore arrive as `AA\:BB\:...`, and SSIDs may contain both.
 */

/** Splits one terse line into its unescaped fields. A trailing lone '\' is kept literally. */
export function splitTerseLine(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (char === '\\' && index + 1 < line.length) {
      current += line[index + 1];
      index++;
    } else if (char === ':') {
      fields.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  fields.push(current);
  return fields;
}

/**
 * Parses terse output into records keyed by the requested field names. Lines with a different
 * field count (output of another nmcli version, stray text) are returned as rejections, never thrown.
 */
export function parseTerseRecords(
  output: string,
  fieldNames: readonly string[],
): { records: Record<string, string>[]; rejected: string[] } {
  const records: Record<string, string>[] = [];
  const rejected: string[] = [];
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    const values = splitTerseLine(line);
    if (values.length !== fieldNames.length) {
      rejected.push(line);
      continue;
    }
    records.push(Object.fromEntries(fieldNames.map((name, index) => [name, values[index]!])));
  }
  return { records, rejected };
}
