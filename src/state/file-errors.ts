/**
 * File-system failures of the state files turned into errors a person can act
 * on: which file, what the system said, and what to do. Anything else is
 * passed through unchanged (it is a bug or a failure we cannot explain better).
 */
import { StateError } from './errors.js';

export function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}

export function fileSystemError(error: unknown, path: string, doing: 'read' | 'write' | 'create'): unknown {
  if (error instanceof StateError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const verb = { read: 'read', write: 'write', create: 'create' }[doing];
  switch (code) {
    case 'EROFS':
      return new StateError(
        'STATE_FS_READ_ONLY',
        `Cannot ${verb} ${path}: the file system is read-only (EROFS).`,
        'Run cplane where the state folder is writable, or point --state at a writable place.',
        { cause: error },
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return new StateError(
        'STATE_DISK_FULL',
        `Cannot ${verb} ${path}: the disk is full (${code}).`,
        'Free some space on that disk and run the command again; the state was left as it was before this write.',
        { cause: error },
      );
    case 'EACCES':
    case 'EPERM':
      return new StateError(
        'STATE_PERMISSION',
        `Cannot ${verb} ${path}: permission denied (${code}).`,
        'Give your user write access to the state folder (and its files), or run cplane as the user who owns them.',
        { cause: error },
      );
    default:
      return error;
  }
}
