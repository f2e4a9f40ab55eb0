import { createMemory, createOpenAiProvider } from 'vmem';
import { runAgent } from 'vmem/tools';
import { createFileStorage, createNodeEmbeddedEncoders, nodeImageResizer } from 'vmem/node';

const { text, image } = createNodeEmbeddedEncoders();
const memory = await createMemory({ textEncoder: text, imageEncoder: image, storage: await createFileStorage('./my-memory') });
const llm = createOpenAiProvider({ baseUrl: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4o-mini', vision: true });

const { answer, steps } = await runAgent({ llm, memory, question: 'What colour was the bike I showed you?', imageResizer: nodeImageResizer });
console.log(answer, steps.length);
await memory.close();
