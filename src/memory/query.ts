import type { EncodedQuery } from '../core/retrieve.js';
import { descriptionKeywords } from '../describe/description.js';
import type { ImageDescriber } from '../describe/types.js';
import { isLlmError, isVmemError, VmemError } from '../errors.js';
import { normalize } from '../lanes/vector-matrix.js';
import { captionAnchorPrompt, cleanCaption, imageKeywordsPrompt, parseKeywords } from '../llm/prompts.js';
import { LLM_IMAGE_MAX_SIDE, LLM_IMAGE_QUALITY, type ImageResizer } from '../images/types.js';
import type { LlmProvider } from '../llm/types.js';
import type { Query } from '../types.js';
import { bytesToDataUrl } from '../util/data-url.js';
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
 * Encodes a routed query: its text and image vectors, and the LLM anchors its case asks for (a
 * hypothetical caption for text→image, keywords read off the query picture for image+text→text).
 * An anchor is an optional improvement: when the LLM fails, retrieval goes on with the raw query and
 * the result's `warnings` say so.
 */
export async function encodeQuery(
  encoders: QueryEncoders,
  text: string,
  image: Query['image'],
  decided: EncodedQuery['route'],
  useLlm: boolean,
): Promise<EncodedQuery> {
  const { llm } = encoders;
  const llmReady = useLlm && llm.available;
  const warnings: string[] = [];
  const anchor = async <T>(what: string, fallback: T, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (!isLlmError(error)) throw error;
      warnings.push(`${what} skipped: ${error.message}`);
      return fallback;
    }
  };
  const wantsCaption = llmReady && decided.target === 'image' && !image && !decided.counting && text !== '';
  const wantsKeywords = llmReady && llm.vision && image?.bytes !== undefined && decided.target === 'text';
  // Without a vision LLM, the offline describer's words for the picture are the enriched anchor.
  const wantsDescribed = useLlm && !wantsKeywords && encoders.describer !== undefined && image?.bytes !== undefined && decided.target === 'text';
  const [captionAnchor, keywords, imageVector] = await Promise.all([
    wantsCaption ? anchor('Hypothetical caption', undefined, () => hypotheticalCaption(llm, text)) : undefined,
    wantsKeywords
      ? anchor('Image keywords', [] as string[], () => imageKeywords(encoders, image!, text))
      : wantsDescribed
        ? describedKeywords(encoders.describer!, image!, warnings)
        : [],
    image ? encodeQueryImage(encoders, image) : undefined,
  ]);
  const searchText = [text, ...keywords].join(' ').trim();
  const toEmbed = [searchText, captionAnchor].filter((value): value is string => Boolean(value));
  const vectors = toEmbed.length ? await encoders.text.embed(toEmbed) : [];
  return {
    route: decided,
    text: searchText,
    ...(searchText ? { textVector: normalize(vectors[0]!) } : {}),
    ...(imageVector ? { imageVector } : {}),
    ...(captionAnchor ? { captionAnchor, captionAnchorVector: normalize(vectors[searchText ? 1 : 0]!) } : {}),
    ...(keywords.length ? { imageKeywords: keywords } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/** The query picture's image-lane vector; undefined when the memory has no image encoder or the picture no bytes. */
export async function encodeQueryImage(encoders: UnitEncoders, image: NonNullable<Query['image']>): Promise<Float32Array | undefined> {
  const imageEncoder = encoders.image;
  if (!imageEncoder) return undefined;
  if (!image.bytes && !(imageEncoder.captionOnly && image.caption)) return undefined;
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
  const mimeType = image.mimeType ?? 'image/jpeg';
  const small = encoders.imageResizer ? await encoders.imageResizer(image.bytes!, mimeType, LLM_IMAGE_MAX_SIDE, LLM_IMAGE_QUALITY) : undefined;
  const url = small ? bytesToDataUrl(small.bytes, small.mimeType) : bytesToDataUrl(image.bytes!, mimeType);
  const reply = await encoders.llm.complete({ messages: imageKeywordsPrompt({ url, detail: 'low' }, question), temperature: 0 });
  return parseKeywords(reply);
}
