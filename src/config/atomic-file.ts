import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Replaces `path` with `content` so that a reader (or the next start after a power cut) sees either
 * the old or the new content, never a mix: write a temp file in the same directory, fsync it, rename
 * it over the target (atomic within one file system, POSIX rename(2)), fsync the directory so the
 * rename itself is durable. Returns false without touching the disk when the content is unchanged.
 */
export function writeFileAtomic(path: string, content: string | Buffer, mode = 0o644): boolean {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  try {
    if (readFileSync(path).equals(bytes)) return false;
  } catch {
    // absent or unreadable: write it
  }
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return true;
}
