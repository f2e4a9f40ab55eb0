import { readFile } from 'node:fs/promises';
import { createMemory } from 'vmem';
import { createNodeEmbeddedEncoders, loadNodeWordVectors } from 'vmem/node';

const { text, image } = createNodeEmbeddedEncoders();
const memory = await createMemory({ textEncoder: text, imageEncoder: image, wordVectors: await loadNodeWordVectors() });

await memory.add({
  sessionId: 'garage',
  timestamp: '2025-05-01T10:00:00Z',
  user: {
    text: 'Look at my new motorcycle!',
    images: [{ bytes: await readFile('motorcycle.jpg'), mimeType: 'image/jpeg', caption: 'a red motorcycle' }],
  },
  assistant: { text: 'Nice bike. Ride safely!' },
});

const result = await memory.retrieve('Which photo showed my motorcycle?');
console.log(result.case); // 'text-to-image'
console.log(result.images.map((picture) => picture.caption)); // ['a red motorcycle']
for (const entry of result.trace) console.log(entry.roundId, entry.neighbour, entry.hits.map((hit) => `${hit.signal}#${hit.rank}`));
await memory.close();
