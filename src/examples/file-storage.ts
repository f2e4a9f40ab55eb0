import { createMemory } from 'vmem';
import { createFileStorage, createNodeEmbeddedEncoders } from 'vmem/node';

const { text, image } = createNodeEmbeddedEncoders();
// The folder is created if missing; opening it again later re-encodes nothing.
const memory = await createMemory({ textEncoder: text, imageEncoder: image, storage: await createFileStorage('./my-memory') });
await memory.add({ user: { text: 'My sister moved to Lisbon.' }, assistant: { text: 'Exciting!' } });
console.log(memory.size);
// Closing releases the folder for the next process.
await memory.close();
