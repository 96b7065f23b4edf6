// @ts-check
/**
 * Shots kept in IndexedDB until the server confirms them, so a reload or a lost connection loses nothing.
 * Best effort only: some engines refuse (WebKit's private and automated sessions will not store a Blob,
 * some private modes have no IndexedDB at all). Nothing here ever throws or waits for long; a refused
 * write answers false so that the page can ask the person to keep it open.
 */
const DB_NAME = "proof-capture";
const OPEN_TIMEOUT_MS = 3000;
/** A write still pending after this counts as refused: the upload it would hold back matters more. */
const WRITE_TIMEOUT_MS = 10_000;

/** @type {Promise<IDBDatabase> | null} */
let opening = null;

function open() {
  opening ??= new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error("IndexedDB did not open in time")), OPEN_TIMEOUT_MS);
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore("shots", { keyPath: "id" }).createIndex("token", "token");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opening;
}

/**
 * @template T
 * @param {IDBTransactionMode} mode
 * @param {(store: IDBObjectStore) => IDBRequest<T>} work
 * @returns {Promise<T>}
 */
async function run(mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error("IndexedDB did not answer in time")), WRITE_TIMEOUT_MS);
    const tx = db.transaction("shots", mode);
    const request = work(tx.objectStore("shots"));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** True when the shot, bytes included, is stored. */
/** @param {import("./types.js").KeptShot} record */
export async function saveShot(record) {
  try {
    await run("readwrite", (store) => store.put(record));
    return true;
  } catch {
    return false;
  }
}

/** @param {string} id */
export async function deleteShot(id) {
  try {
    await run("readwrite", (store) => store.delete(id));
  } catch {
    // Nothing stored, nothing to delete.
  }
}

/** The shots kept for this capture link, or none when the store cannot be read. */
/**
 * @param {string} token
 * @returns {Promise<import("./types.js").KeptShot[]>}
 */
export async function shotsOf(token) {
  try {
    const kept = await run("readonly", (store) => store.index("token").getAll(token));
    return Array.isArray(kept) ? kept.filter((shot) => shot.blob instanceof Blob) : [];
  } catch {
    return [];
  }
}
