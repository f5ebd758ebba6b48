// The dashboard's "Choose spreadsheets" (GOOGLE_SCOPE_MODE=picked-files): loads the Google Picker
// the way Google documents it (api.js, gapi.load('picker'), a DocsView of spreadsheets with shared
// drives), with a short-lived Google access token fetched from this site on click (never in the
// page or a URL), and posts the picked files' ids, names and types to /dashboard/picked-files.
(() => {
  const root = document.getElementById('picker');
  if (!root) return;
  const button = root.querySelector('button[data-picker-open]');
  const status = document.getElementById('picker-status');
  const form = document.getElementById('picked-form');
  const needsScript = document.getElementById('picker-needs-script');
  if (!button || !form) return;
  button.hidden = false;
  if (needsScript) needsScript.hidden = true;

  const say = (text) => {
    if (status) status.textContent = text;
  };

  let loading;
  const loadPicker = () => {
    loading ??= new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = root.dataset.scriptUrl;
      script.async = true;
      script.onload = () => window.gapi.load('picker', { callback: resolve, onerror: reject });
      script.onerror = () => reject(new Error('the Google Picker did not load'));
      document.head.append(script);
    }).catch((error) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };

  const pickerToken = async () => {
    const response = await fetch('/dashboard/picker-token', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: root.dataset.tokenCsrf }),
    });
    if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error || 'no Google access');
    return (await response.json()).accessToken;
  };

  const picked = (data) => {
    const picker = window.google.picker;
    if (data[picker.Response.ACTION] === picker.Action.CANCEL) return say('Nothing was chosen.');
    if (data[picker.Response.ACTION] !== picker.Action.PICKED) return;
    const docs = data[picker.Response.DOCUMENTS] || [];
    for (const doc of docs) {
      for (const [name, value] of [
        ['file_id', doc[picker.Document.ID]],
        ['file_name', doc[picker.Document.NAME]],
        ['file_mime_type', doc[picker.Document.MIME_TYPE]],
      ]) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value || '';
        form.append(input);
      }
    }
    say('Saving your choice…');
    form.submit();
  };

  button.addEventListener('click', async () => {
    button.disabled = true;
    say('Opening the Google Picker…');
    try {
      const [token] = await Promise.all([pickerToken(), loadPicker()]);
      const picker = window.google.picker;
      const view = new picker.DocsView(picker.ViewId.SPREADSHEETS)
        .setIncludeFolders(true)
        .setEnableDrives(true)
        .setMimeTypes('application/vnd.google-apps.spreadsheet');
      new picker.PickerBuilder()
        .addView(view)
        .enableFeature(picker.Feature.MULTISELECT_ENABLED)
        .enableFeature(picker.Feature.SUPPORT_DRIVES)
        .setOAuthToken(token)
        .setDeveloperKey(root.dataset.apiKey)
        .setAppId(root.dataset.appId)
        .setCallback(picked)
        .build()
        .setVisible(true);
      say('');
    } catch (error) {
      say(`The Google Picker could not open: ${error.message}. Reload the page and try again.`);
    } finally {
      button.disabled = false;
    }
  });
})();
