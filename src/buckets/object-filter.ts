// Which listed objects a task takes: `filter_glob` (picomatch syntax: *, **, ?, [..], {a,b}) matched
// against the object key RELATIVE to the task's prefix (prefix "docs/" + glob "**/*.md" selects
// docs/a/b.md), the way `aws s3 cp --include` and gsutil patterns read. Without a glob every object is
// taken. "Directory" placeholder objects (keys ending in "/") are never taken. Dot-files and dot-dirs
// are matched only by patterns that name the dot (picomatch default, like a shell).
import picomatch from 'picomatch';
import { AppError } from '../internal/errors.ts';

/** Longest accepted filter_glob. */
export const MAX_GLOB_LENGTH = 1024;

/**
 * Build the predicate for a task.
 * @param prefix the task's key prefix ('' for the whole bucket)
 * @param glob   filter_glob, or undefined/empty for "everything"
 * @throws AppError validation_failed when the glob is too long or cannot be compiled
 */
export function objectFilter(prefix: string, glob: string | null | undefined): (key: string) => boolean {
  if (glob && glob.length > MAX_GLOB_LENGTH) {
    throw new AppError('validation_failed', `filter_glob is longer than ${MAX_GLOB_LENGTH} characters.`, { field: 'filter_glob' });
  }
  let match: ((s: string) => boolean) | undefined;
  if (glob) {
    try {
      match = picomatch(glob, { strictBrackets: true });
    } catch (err) {
      throw new AppError('validation_failed', `filter_glob is not a valid glob: ${(err as Error).message}`, { field: 'filter_glob' });
    }
  }
  return (key: string) => {
    if (key.endsWith('/')) return false;
    if (!key.startsWith(prefix)) return false;
    return match ? match(key.slice(prefix.length)) : true;
  };
}
