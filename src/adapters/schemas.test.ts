import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MEMORY_TOOLS } from 'vmem/tools';
import { TOOL_INPUTS } from 'vmem/ai-sdk';

describe('the zod schemas of the memory tools', () => {
  it('are exactly the JSON Schemas the OpenAI definitions send', () => {
    for (const { function: definition } of MEMORY_TOOLS) {
      const { $schema: _dialect, ...fromZod } = z.toJSONSchema(TOOL_INPUTS[definition.name]);
      expect({ name: definition.name, schema: fromZod }).toEqual({ name: definition.name, schema: definition.parameters });
    }
  });
});
