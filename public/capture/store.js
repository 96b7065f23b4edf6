// @ts-check
/** Shots kept in IndexedDB until the server confirms them, so a reload or a lost connection loses nothing. */
const DB_NAME = "proof-capture";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore("shots", { keyPath: "id" }).createIndex("token", "token");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run(mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction("shots", mode);
    const result = work(tx.objectStore("shots"));
    tx.oncomplete = () => resolve(result && "result" in result ? result.result : undefined);
    tx.onerror = () => reject(tx.error);
  });
}

export const saveShot = (shot) => run("readwrite", (store) => store.put(shot));
export const deleteShot = (id) => run("readwrite", (store) => store.delete(id));
export const shotsOf = (token) => run("readonly", (store) => store.index("token").getAll(token));
