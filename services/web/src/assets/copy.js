// Progressive enhancement: "Copy" buttons copy the text of the element named by data-copy.
// Without JavaScript the buttons stay hidden and the text is selectable as usual.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.getAttribute('data-copy'));
  const status = document.getElementById(button.getAttribute('data-status'));
  if (!target) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(target.textContent.trim());
      if (status) status.textContent = 'Copied.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      if (status) status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
    }
  });
}
