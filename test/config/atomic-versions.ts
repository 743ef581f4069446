/** Content of version n: large enough (~48 KiB) that a torn write would show. */
export function versionContent(n: number): string {
  const line = `version ${n} `.padEnd(48, String(n % 10));
  return `${JSON.stringify({ version: n })}\n${`${line}\n`.repeat(1000)}`;
}
