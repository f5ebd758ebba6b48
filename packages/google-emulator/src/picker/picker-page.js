// The emulator's picker page, framed by the stand-in api.js on the app's page. The app's page
// sends the OAuth token once by postMessage (never in the URL); the page lists the account's
// spreadsheets with it, and answers the selection to that page's origin only.
(() => {
  let parentOrigin = null;
  let token = null;
  let drives = false;
  const status = document.getElementById('status');
  const form = document.getElementById('picker');
  const list = document.getElementById('files');

  const send = (data) => window.parent.postMessage({ type: 'emulator-picker-result', data }, parentOrigin);
  const call = (path, init = {}) =>
    fetch(path, { ...init, headers: { ...(init.headers || {}), authorization: `Bearer ${token}` } });

  async function show(multiselect) {
    const response = await call(`/picker/v1/files${drives ? '?drives=true' : ''}`);
    if (!response.ok) {
      status.textContent = `Google Picker: the OAuth token was refused (${response.status}).`;
      return;
    }
    const { files } = await response.json();
    for (const file of files) {
      const item = document.createElement('li');
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = multiselect ? 'checkbox' : 'radio';
      input.name = 'file';
      input.value = file.id;
      label.append(input, ` ${file.name}${file.driveId ? ' (shared drive)' : ''}`);
      item.append(label);
      list.append(item);
    }
    status.textContent = files.length === 0 ? 'No spreadsheets.' : `${files.length} spreadsheets.`;
    form.hidden = false;
    send({ action: 'loaded' });
  }

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || parentOrigin !== null) return;
    const data = event.data;
    if (data?.type !== 'emulator-picker-init' || typeof data.token !== 'string') return;
    parentOrigin = event.origin;
    token = data.token;
    drives = data.drives === true;
    show(data.multiselect === true);
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const ids = [...form.querySelectorAll('input[name="file"]:checked')].map((input) => input.value);
    if (ids.length === 0) return;
    const response = await call('/picker/v1/select', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ids, drives }),
    });
    if (!response.ok) {
      status.textContent = `Google Picker: the selection failed (${response.status}).`;
      return;
    }
    send(await response.json());
  });
  document.getElementById('cancel').addEventListener('click', () => send({ action: 'cancel' }));
})();
