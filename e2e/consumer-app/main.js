// A throwaway app, as a user writes it after `npm install vmem`: it imports the browser entry by
// name and is built by plain `vite build`, with no Vite config. The consumer spec copies it into a
// temporary folder and drives it through `window.consumer`.
import { importMemory, listMemories, openMemory } from 'vmem/browser';

const NAME = 'photos';
let memory;

async function jpegAt(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return { bytes: new Uint8Array(await response.arrayBuffer()), mimeType: 'image/jpeg' };
}

window.consumer = {
  /** Opens the memory; with `baseUrl`, the worker and models come from that folder instead. */
  async open(baseUrl, options = {}) {
    memory = await openMemory(NAME, { ...options, ...(baseUrl ? { baseUrl } : {}) });
    document.getElementById('status').textContent = `Memory "${NAME}": ${memory.size} rounds, ${memory.backend}`;
    return { backend: memory.backend, backendReason: memory.backendReason, size: memory.size, isolated: self.crossOriginIsolated };
  },
  list: () => listMemories(),
  /** Adds one round per photo: `{ id, text, url }`. */
  async addPhotos(photos) {
    const rounds = await Promise.all(photos.map(async ({ id, text, url }) => ({ id, user: { text, images: [{ id: `${id}-photo`, ...(await jpegAt(url)) }] } })));
    await memory.add(rounds);
    return memory.size;
  },
  /** Retrieves for `{ text?, imageUrl? }` and returns the whole result. */
  async ask({ text, imageUrl }) {
    return memory.retrieve({ ...(text ? { text } : {}), ...(imageUrl ? { image: await jpegAt(imageUrl) } : {}) });
  },
  counts: () => memory.worker.counts(),
  close: () => memory.close(),
  /** The memory as a `.vmem` file, base64 (to cross into the test). */
  async exportFile() {
    const bytes = new Uint8Array(await (await memory.export()).arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  },
  /** Imports a `.vmem` file given as base64, as a File (what an <input type="file"> yields). */
  async importFile(base64) {
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    await importMemory(NAME, new File([bytes], `${NAME}.vmem`));
  },
};
