/*
 * Decides, by a keyword rule on the question alone (no LLM call, no tool call), whether answering
 * needs to look at pictures: questions about colour, looks, clothing, written text, shape, pattern,
 * material, counts of things in a picture, style. General English only: the rule must hold on
 * conversations nobody has seen, so no phrase of any one data set belongs here.
 */

const PICTURE = String.raw`(?:photos?|photographs?|pictures?|pics?|images?|snapshots?|shots?|screenshots?|selfies?|frames?|clips?|videos?)`;

const VISUAL_PATTERNS: readonly RegExp[] = [
  // colour
  /\b(?:colou?r(?:s|ed|ful|ing)?|hues?|shades?\s+of|tint(?:ed)?)\b/i,
  // looks and appearance
  /\bwhat\b[^?.!]*\blook(?:s|ed)?\s+like\b/i,
  /\bhow\s+(?:does|did|do|would)\b[^?.!]*\blook\b/i,
  /\b(?:appearance|appearances|looks\s+of)\b/i,
  // clothing
  /\b(?:wear(?:s|ing)?|wore|worn|dressed|outfits?|clothes|clothing|costumes?|uniforms?|attire)\b/i,
  // written text, signs, labels, logos, brands
  /\b(?:written|writing|handwritten|inscri(?:bed|ptions?)|printed|engraved|lettering|captioned|logos?|labell?ed|labels?|brand(?:s|ed|ing)?|trademarks?|banners?|signage)\b/i,
  /\bsigns?\b(?!\s+(?:up|in|out|off|of|the|a|an|my|your|his|her|our|their)\b)/i,
  /\b(?:text|words?|letters?|numbers?|digits?|names?|slogans?|titles?)\s+(?:on|in)\s+(?:the|that|this|his|her|my|their|a)\b/i,
  /\b(?:say|says|said|read|reads)\s+on\b/i,
  // "what did the mug say": only things that carry writing, so "what did the doctor say" stays verbal
  /\bwhat\s+(?:does|did|do)\s+(?:the|that|this|those|these|his|her|my|their)\s+(?:\w+\s+)?(?:sign|note|card|board|screen|(?:t-)?shirt|tee|hoodie|mug|cup|plate|banner|poster|sticker|tag|menu|cake|jersey|box|package|packaging|bottle|cover|billboard|door|wall|graffiti|tattoo|badge|cap|hat|bag|mural|sticker)s?\s+(?:say|said|read)\b/i,
  // shape, pattern, material
  /\b(?:shapes?|shaped|patterns?|patterned|stripes?|striped|spots|spotted|dots|dotted|polka|checkered|plaid|tartan|floral|texture[sd]?|materials?|fabrics?|made\s+(?:of|from|out\s+of))\b/i,
  // style and design
  /\b(?:style|styled|design(?:ed)?|decor(?:ation|ated)?s?|architecture|hairstyle|haircut)\b/i,
  // what is visible in a picture, counting included
  /\b(?:visible|depicted|pictured|portrayed|background|foreground)\b/i,
  new RegExp(String.raw`\b(?:in|on|from|inside)\s+(?:the|that|this|those|these|my|his|her|their|your)\s+(?:\w+\s+)?${PICTURE}\b`, 'i'),
  new RegExp(String.raw`\b(?:shown|seen|see|showing)\s+(?:in|on)\b[^?.!]*\b${PICTURE}\b`, 'i'),
  /\bcan\s+(?:you|i|we)\s+see\b/i,
  // body language and kinds of animals, told by looking
  /\b(?:facial\s+expression|expression\s+on|smiling|posing|pose|breed)\b/i,
];

/**
 * True when the question asks for something seen rather than said: colour, looks, clothing, text on
 * a sign or label, a logo or brand, shape, pattern, material, style, or what is in a picture.
 * A keyword rule (documented above), not a model decision, so it costs nothing and is predictable.
 * @example
 * needsVisualDetail('What colour was the sculpture in the park?') // true
 * needsVisualDetail('When is my dentist appointment?') // false
 */
export function needsVisualDetail(question: string): boolean {
  const text = question.normalize('NFKC');
  return VISUAL_PATTERNS.some((pattern) => pattern.test(text));
}
