import type { QueryNeeds } from '../core/plan.js';
import type { EncodedQuery } from '../core/run.js';
import { descriptionKeywords } from '../describe/description.js';
import type { ImageDescriber } from '../describe/types.js';
import { isLlmError, isVmemError, VmemError } from '../errors.js';
import { normalize } from '../lanes/vector-matrix.js';
import { captionAnchorPrompt, cleanCaption, imageKeywordsPrompt, parseKeywords } from '../llm/prompts.js';
import { LLM_IMAGE_MAX_SIDE, LLM_IMAGE_QUALITY, type ImageResizer } from '../images/types.js';
import type { LlmProvider } from '../llm/types.js';
import type { Query } from '../types.js';
import { pictureDataUrl } from '../images/picture-url.js';
import type { UnitEncoders } from './encode-units.js';

/** What encoding a query needs: the memory's encoders, its LLM, and the resizer for pictures the LLM sees. */
export interface QueryEncoders extends UnitEncoders {
  readonly llm: LlmProvider;
  /** Shrinks the query picture before a vision LLM reads keywords off it; without it the picture goes as stored. */
  readonly imageResizer: ImageResizer | undefined;
  /** Reads keywords off the query picture when no vision LLM can. */
  readonly describer: ImageDescriber | undefined;
}

/**
 * Fulfils a plan's needs: the question's vectors, the query picture's vector, and the LLM anchors the
 * plan asks for (a hypothetical caption for text→image, keywords read off the query picture for
 * image+text→text). An anchor is an optional improvement: when the LLM fails, retrieval goes on
 * without it and the result's `warnings` say so.
 */
export async function encodeQuery(encoders: QueryEncoders, text: string, image: Query['image'], needs: QueryNeeds): Promise<EncodedQuery> {
  const warnings: string[] = [];
  const anchor = async <T>(what: string, call: () => Promise<T | undefined>): Promise<T | undefined> => {
    try {
      return await call();
    } catch (error) {
      if (!isLlmError(error)) throw error;
      warnings.push(`${what} skipped: ${error.message}`);
      return undefined;
    }
  };
  const [captionAnchor, keywords, imageVector] = await Promise.all([
    needs.captionAnchor ? anchor('Hypothetical caption', () => hypotheticalCaption(encoders.llm, text)) : undefined,
    needs.imageKeywords && image
      ? anchor('Image keywords', () => imageKeywords(encoders, image, text))
      : needs.describedKeywords && image && encoders.describer
        ? describedKeywords(encoders.describer, image, warnings)
        : undefined,
    needs.imageVector && image ? encodeQueryImage(encoders, image) : undefined,
  ]);
  const words = keywords?.length ? keywords : undefined;
  const caption = image?.caption?.trim();
  const pictureText = needs.pictureWords ? (caption || words?.join(', ')) : undefined;
  // One call embeds every text the plan needs, in this order.
  const texts = [needs.questionVector ? text : undefined, needs.contentText, captionAnchor, pictureText || undefined];
  const present = texts.filter((value): value is string => value !== undefined);
  const vectors = present.length > 0 ? (await encoders.text.embed(present)).map(normalize) : [];
  let next = 0;
  const [questionVector, contentVector, anchorVector, pictureVector] = texts.map((value) => (value === undefined ? undefined : vectors[next++]));
  return {
    text,
    ...(questionVector ? { questionVector } : {}),
    ...(contentVector ? { contentVector } : {}),
    ...(imageVector ? { imageVector } : {}),
    ...(captionAnchor && anchorVector ? { captionAnchor: { text: captionAnchor, vector: anchorVector } } : {}),
    ...(pictureText && pictureVector ? { pictureWords: { text: pictureText, vector: pictureVector, ...(words && !caption ? { keywords: words } : {}) } } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/** Whether the image lane can read a query picture: it has bytes, or a caption for a caption-only encoder. */
export function canEncodeQueryImage(encoders: UnitEncoders, image: NonNullable<Query['image']>): boolean {
  return encoders.image !== undefined && (image.bytes !== undefined || (encoders.image.captionOnly === true && image.caption !== undefined));
}

/** The query picture's image-lane vector; undefined when the memory has no image encoder or the picture no bytes. */
export async function encodeQueryImage(encoders: UnitEncoders, image: NonNullable<Query['image']>): Promise<Float32Array | undefined> {
  const imageEncoder = encoders.image;
  if (!imageEncoder || !canEncodeQueryImage(encoders, image)) return undefined;
  if (image.mimeType !== undefined && !image.mimeType.startsWith('image/')) {
    throw new VmemError('UNSUPPORTED_FILE', `The query attachment has type "${image.mimeType}"; attach an image (JPEG, PNG, WebP, GIF, BMP).`);
  }
  const [vector] = await imageEncoder.embed([
    { ...(image.bytes ? { bytes: image.bytes } : {}), ...(image.mimeType ? { mimeType: image.mimeType } : {}), ...(image.caption ? { caption: image.caption } : {}) },
  ]);
  return normalize(vector!);
}

/**
 * Words the offline describer reads off the query picture. Like an LLM anchor they are an optional
 * improvement: when the describer fails (a picture it cannot read, a worker timeout), retrieval goes
 * on without them and `warnings` says so.
 */
async function describedKeywords(describer: ImageDescriber, image: NonNullable<Query['image']>, warnings: string[]): Promise<string[]> {
  try {
    const [description] = await describer.describe([{ bytes: image.bytes!, ...(image.mimeType ? { mimeType: image.mimeType } : {}) }]);
    return descriptionKeywords(description!);
  } catch (error) {
    if (!isVmemError(error)) throw error;
    warnings.push(`Image keywords skipped: ${error.message}`);
    return [];
  }
}

async function hypotheticalCaption(llm: LlmProvider, question: string): Promise<string | undefined> {
  const reply = await llm.complete({ messages: captionAnchorPrompt(question), temperature: 0 });
  return cleanCaption(reply) || undefined;
}

async function imageKeywords(encoders: QueryEncoders, image: NonNullable<Query['image']>, question: string): Promise<string[]> {
  if (!image.bytes) return [];
  const mimeType = image.mimeType ?? 'image/jpeg';
  const small = encoders.imageResizer ? await encoders.imageResizer(image.bytes, mimeType, LLM_IMAGE_MAX_SIDE, LLM_IMAGE_QUALITY) : undefined;
  const url = small ? pictureDataUrl(small.bytes, small.mimeType, "the question's picture, downscaled") : pictureDataUrl(image.bytes, mimeType, "the question's picture");
  const reply = await encoders.llm.complete({ messages: imageKeywordsPrompt({ url, detail: 'low' }, question), temperature: 0 });
  return parseKeywords(reply);
}
