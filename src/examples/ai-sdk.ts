import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { createMemory } from 'vmem';
import { memoryMiddleware, memoryTools } from 'vmem/ai-sdk';
import { createFileStorage, createNodeEmbeddedEncoders, nodeImageResizer } from 'vmem/node';

const { text, image } = createNodeEmbeddedEncoders();
const memory = await createMemory({ textEncoder: text, imageEncoder: image, storage: await createFileStorage('./my-memory') });
const ollama = createOpenAICompatible({ name: 'ollama', baseURL: 'http://localhost:11434/v1' });

// Tools: the model decides when to search, look at pictures, or remember something.
const { text: reply, steps } = await generateText({
  model: ollama.chatModel('llama3.2'),
  tools: memoryTools(memory, { sessionId: 'chat-1', imageResizer: nodeImageResizer }),
  stopWhen: stepCountIs(5),
  prompt: 'What did I say about my sister last week?',
});
console.log(reply, steps.flatMap((step) => step.toolCalls.map((call) => call.toolName)));

// Middleware: every call gets the memories retrieved for the user's last message, no tool needed.
const model = wrapLanguageModel({ model: ollama.chatModel('llama3.2'), middleware: memoryMiddleware(memory, { retrieval: { k: 5 } }) });
console.log((await generateText({ model, prompt: 'Where did my sister move?' })).text);
await memory.close();
