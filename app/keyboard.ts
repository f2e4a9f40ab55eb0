/** Keyboard paths through the demo: skip links to the two boxes, and Ctrl/Cmd+Enter to submit a box's form. */

/** Skip links move focus into their target box, not only the scroll position. */
export function bindSkipLinks(root: ParentNode = document): void {
  for (const link of root.querySelectorAll<HTMLAnchorElement>('a.skip-link')) {
    link.addEventListener('click', (event) => {
      const target = document.getElementById(link.hash.slice(1));
      if (!target) return;
      event.preventDefault();
      target.focus();
    });
  }
}

/** Ctrl+Enter (Cmd+Enter on a Mac) in any text box of a form submits that form, as chat apps do. */
export function bindSubmitShortcut(root: HTMLElement = document.body): void {
  root.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || event.isComposing) return;
    const box = event.target;
    if (!(box instanceof HTMLTextAreaElement) || !box.form) return;
    event.preventDefault();
    box.form.requestSubmit();
  });
}
