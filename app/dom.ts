/** Small DOM helpers. Text goes in through `textContent` only, never as HTML. */

type Child = Node | string | null | undefined | false;

/**
 * Creates an element with attributes and children; strings become text nodes.
 * @example el('td', { class: 'rank' }, String(rank))
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string | undefined>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) element.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

/** The element with `id`, of the expected type; throws if the page lacks it (a build mistake). */
export function byId<T extends HTMLElement>(id: string, type: { new (): T }): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`index.html lacks #${id} (${type.name})`);
  return element;
}

/** Shows a progress bar row; `fraction` undefined hides it. */
export function setProgress(row: HTMLElement, bar: HTMLProgressElement, label: HTMLElement, text: string, fraction: number | undefined): void {
  row.hidden = fraction === undefined;
  if (fraction === undefined) return;
  bar.value = Math.max(0, Math.min(1, fraction));
  label.textContent = text;
}

/** Offers `blob` as a download named `fileName`. */
export function download(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = el('a', { href: url, download: fileName });
  document.body.append(link);
  link.click();
  link.remove();
  // Revoke later: the download starts asynchronously.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
