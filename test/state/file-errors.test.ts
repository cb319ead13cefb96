// File-system failures of the state files name the file and say what to do (these tests run as root on CI, where
// permissions cannot be taken away and disks do not fill up, so the errno values are made by hand).
import { describe, expect, it } from 'vitest';
import { fileSystemError } from '../../src/state/file-errors.js';
import { StateError } from '../../src/state/index.js';

const errno = (code: string) => Object.assign(new Error(`${code}: failed, write`), { code });

describe('state file-system errors', () => {
  it.each([
    [
      'EROFS',
      'STATE_FS_READ_ONLY',
      'Cannot write /s/state.json: the file system is read-only (EROFS).',
      'Run cplane where the state folder is writable, or point --state at a writable place.',
    ],
    [
      'ENOSPC',
      'STATE_DISK_FULL',
      'Cannot write /s/state.json: the disk is full (ENOSPC).',
      'Free some space on that disk and run the command again; the state was left as it was before this write.',
    ],
    [
      'EACCES',
      'STATE_PERMISSION',
      'Cannot write /s/state.json: permission denied (EACCES).',
      'Give your user write access to the state folder (and its files), or run cplane as the user who owns them.',
    ],
  ])('%s names the file and what to do', (code, stateCode, message, hint) => {
    const error = fileSystemError(errno(code), '/s/state.json', 'write') as StateError;
    expect(error).toBeInstanceOf(StateError);
    expect(error.code).toBe(stateCode);
    expect(error.message).toBe(message);
    expect(error.hint).toBe(hint);
  });

  it('passes any other failure through unchanged', () => {
    const other = errno('EIO');
    expect(fileSystemError(other, '/s/state.json', 'write')).toBe(other);
  });
});
