/**
 * The memory tools' arguments as zod schemas, for the frameworks that take zod (AI SDK, LangChain,
 * MCP). Descriptions and limits come from `TOOL_SPECS`, and a test checks that each schema's JSON
 * Schema is exactly the one `MEMORY_TOOLS` sends, so the two cannot drift.
 */
import { z } from 'zod';
import { TOOL_SPECS, type MemoryToolName } from 'vmem/tools';

const { recall, recall_by_time: byTime, get_images: images, remember, forget } = TOOL_SPECS;
const count = (spec: { readonly description: string; readonly maximum: number }) => z.number().int().min(1).max(spec.maximum).describe(spec.description);

/** Arguments of `recall`. */
export const recallInput = z.object({
  query: z.string().describe(recall.parameters.properties.query.description),
  image: z.string().describe(recall.parameters.properties.image.description).optional(),
  limit: count(recall.parameters.properties.limit).optional(),
});

/** Arguments of `recall_by_time`. */
export const recallByTimeInput = z.object({
  from: z.string().describe(byTime.parameters.properties.from.description),
  to: z.string().describe(byTime.parameters.properties.to.description),
  query: z.string().describe(byTime.parameters.properties.query.description).optional(),
  limit: count(byTime.parameters.properties.limit).optional(),
});

/** Arguments of `get_images`. */
export const getImagesInput = z.object({
  roundIds: z
    .array(z.string())
    .min(1)
    .max(images.parameters.properties.roundIds.maxItems)
    .describe(images.parameters.properties.roundIds.description),
  maxImages: count(images.parameters.properties.maxImages).optional(),
});

const rememberImage = remember.parameters.properties.images;

/** Arguments of `remember`. */
export const rememberInput = z.object({
  user: z.string().describe(remember.parameters.properties.user.description).optional(),
  assistant: z.string().describe(remember.parameters.properties.assistant.description).optional(),
  images: z
    .array(
      z.object({
        source: z.string().describe(rememberImage.items.properties.source.description),
        caption: z.string().describe(rememberImage.items.properties.caption.description).optional(),
      }),
    )
    .max(rememberImage.maxItems)
    .describe(rememberImage.description)
    .optional(),
});

/** Arguments of `forget`. */
export const forgetInput = z.object({
  roundId: z.string().describe(forget.parameters.properties.roundId.description),
});

/** The arguments each tool takes, by name. */
export interface ToolInputs {
  readonly recall: z.infer<typeof recallInput>;
  readonly recall_by_time: z.infer<typeof recallByTimeInput>;
  readonly get_images: z.infer<typeof getImagesInput>;
  readonly remember: z.infer<typeof rememberInput>;
  readonly forget: z.infer<typeof forgetInput>;
}

/** Each tool's argument schema, by name. */
export const TOOL_INPUTS: { readonly [Name in MemoryToolName]: z.ZodObject & z.ZodType<ToolInputs[Name]> } = {
  recall: recallInput,
  recall_by_time: recallByTimeInput,
  get_images: getImagesInput,
  remember: rememberInput,
  forget: forgetInput,
};
