/**
 * Group commit of state saves. Every write needs two saves (its journal entry
 * before it is sent, its result after), and the store saves one change at a
 * time; with many writes in flight, changes that arrive while a save is under
 * way are applied together in the next save. Each caller still resumes only
 * once its own change is on disk, so "saved before sent" holds for every write.
 */
import type { StateStore } from '../state/index.js';
import type { StateData } from '../state/types.js';

interface Pending {
  mutate: (draft: StateData) => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function withGroupCommit(state: StateStore): StateStore {
  let queue: Pending[] = [];
  let saving = false;

  const drain = async () => {
    saving = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const failures = new Map<Pending, unknown>();
      try {
        await state.update((draft) => {
          for (const item of batch) {
            try {
              item.mutate(draft);
            } catch (error) {
              // Mutations check before they change anything, so a failed one leaves the draft as it was.
              failures.set(item, error);
            }
          }
        });
        for (const item of batch) {
          if (failures.has(item)) item.reject(failures.get(item));
          else item.resolve();
        }
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    saving = false;
  };

  return {
    get data() {
      return state.data;
    },
    path: state.path,
    lockId: state.lockId,
    update: (mutate) =>
      new Promise<void>((resolve, reject) => {
        queue.push({ mutate, resolve, reject });
        if (!saving) void drain();
      }),
    fingerprint: (address, field, value) => state.fingerprint(address, field, value),
    seal: (address, plaintext) => state.seal(address, plaintext),
    open: (address, sealed) => state.open(address, sealed),
    sealBody: (address, bytes) => state.sealBody(address, bytes),
    openBody: (address, sealed) => state.openBody(address, sealed),
    encryptRecordValue: (plaintext) => state.encryptRecordValue(plaintext),
    decryptRecordValue: (value) => state.decryptRecordValue(value),
    close: () => state.close(),
  };
}
