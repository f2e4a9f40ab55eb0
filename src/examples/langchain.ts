import { createMemory } from 'vmem';
import { memoryTools, VmemRetriever } from 'vmem/langchain';
import { createFileStorage, createNodeEmbeddedEncoders } from 'vmem/node';

const { text, image } = createNodeEmbeddedEncoders();
const memory = await createMemory({ textEncoder: text, imageEncoder: image, storage: await createFileStorage('./my-memory') });

// A retriever for chains: one Document per retrieved round.
const retriever = new VmemRetriever({ memory, retrieval: { k: 5 } });
for (const doc of await retriever.invoke('Where did my sister move?')) {
  console.log(doc.metadata.roundId, doc.metadata.date, doc.metadata.neighbour ? '(context)' : `#${doc.metadata.rank}`);
  console.log(doc.pageContent);
}

// Tools for agents: pass them to createAgent, or to model.bindTools.
const tools = memoryTools(memory, { sessionId: 'chat-1' });
console.log(tools.map((tool) => tool.name)); // ['recall', 'recall_by_time', 'get_images', 'remember']
await memory.close();
