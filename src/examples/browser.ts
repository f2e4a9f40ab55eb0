import { openMemory } from 'vmem/browser';

const photo = document.querySelector<HTMLInputElement>('#photo')!.files![0]!;
const memory = await openMemory('alice', { onProgress: (event) => console.log(event.task, event.status) });
console.log(memory.backend, memory.backendReason); // e.g. 'wasm', 'WASM: WebGPU is not available (…)'

await memory.add({
  sessionId: 'weekend',
  user: { text: 'Look at my new motorcycle!', images: [{ bytes: new Uint8Array(await photo.arrayBuffer()), mimeType: photo.type }] },
  assistant: { text: 'Nice bike. Ride safely!' },
});

const result = await memory.retrieve('Which photo showed my motorcycle?');
console.log(result.case, result.images.map((image) => image.id));
const backup: Blob = await memory.export(); // a .vmem file: importMemory('alice-copy', backup) restores it
await memory.close();
