/**
 * Why a string cannot be a PUBLISH topic name, or undefined when it can: MQTT 3.1.1 §4.7.3 (at
 * least one character, at most 65535 UTF-8 bytes, no U+0000) and §4.7.1 (no + or # wildcards in a
 * topic name). `${...}` template variables are fine: they contain none of these.
 */
export function topicNameProblem(topic: string): string | undefined {
  if (topic === '') return 'must not be empty';
  if (topic.includes('+') || topic.includes('#')) return 'must not contain the wildcards + or #';
  if (topic.includes('\u0000')) return 'must not contain NUL';
  if (Buffer.byteLength(topic) > 65535) return 'must be at most 65535 UTF-8 bytes';
  return undefined;
}

/** Whether `topic` matches the subscription `filter` (MQTT 3.1.1 §4.7: `+` one level, `#` the rest). */
export function topicMatches(filter: string, topic: string): boolean {
  const wanted = filter.split('/');
  const levels = topic.split('/');
  for (let i = 0; i < wanted.length; i++) {
    if (wanted[i] === '#') return true;
    if (i >= levels.length || (wanted[i] !== '+' && wanted[i] !== levels[i])) return false;
  }
  return wanted.length === levels.length;
}
