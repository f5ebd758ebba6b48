// The Google emulator's stand-in for https://apis.google.com/js/api.js with the Picker loaded:
// `gapi.load('picker', callback)` and the `google.picker` API an app calls (PickerBuilder,
// DocsView, ViewId, Feature, Action, Response, Document). `build().setVisible(true)` frames the
// emulator's picker page over the app's page; the page's answer reaches the callback in the shape
// Google's Picker gives it: `{action: 'loaded'}`, then `{action: 'picked', docs: [{id, name,
// mimeType, url, ...}]}` or `{action: 'cancel'}`.
(() => {
  const origin = new URL(document.currentScript.src).origin;

  const ViewId = {
    DOCS: 'all',
    DOCUMENTS: 'documents',
    SPREADSHEETS: 'spreadsheets',
    PRESENTATIONS: 'presentations',
    FOLDERS: 'folders',
    FORMS: 'forms',
    PDFS: 'pdfs',
  };
  const Action = { PICKED: 'picked', CANCEL: 'cancel', LOADED: 'loaded', ERROR: 'error' };
  const Response = { ACTION: 'action', DOCUMENTS: 'docs', PARENTS: 'parents', VIEW: 'viewToken' };
  const Document = {
    ID: 'id',
    NAME: 'name',
    MIME_TYPE: 'mimeType',
    URL: 'url',
    SERVICE_ID: 'serviceId',
    DESCRIPTION: 'description',
    TYPE: 'type',
    LAST_EDITED_UTC: 'lastEditedUtc',
    ICON_URL: 'iconUrl',
    EMBEDDABLE_URL: 'embedUrl',
    PARENT_ID: 'parentId',
    IS_SHARED: 'isShared',
  };
  const Feature = {
    MULTISELECT_ENABLED: 'multiselectEnabled',
    SUPPORT_DRIVES: 'sdr',
    NAV_HIDDEN: 'navHidden',
    MINE_ONLY: 'mineOnly',
    SIMPLE_UPLOAD_ENABLED: 'simpleUploadEnabled',
  };

  class DocsView {
    constructor(viewId) {
      this.viewId = viewId || ViewId.DOCS;
      this.enableDrives = false;
    }
    setEnableDrives(enabled) {
      this.enableDrives = enabled === true;
      return this;
    }
    setIncludeFolders() {
      return this;
    }
    setMimeTypes() {
      return this;
    }
    setSelectFolderEnabled() {
      return this;
    }
    setOwnedByMe() {
      return this;
    }
    setStarred() {
      return this;
    }
    setMode() {
      return this;
    }
    setParent() {
      return this;
    }
  }

  class Picker {
    constructor(config) {
      this.config = config;
      this.overlay = null;
    }
    setCallback(callback) {
      this.config.callback = callback;
      return this;
    }
    isVisible() {
      return this.overlay !== null;
    }
    setVisible(visible) {
      if (!visible) return this.close();
      if (this.overlay) return;
      if (!this.config.token)
        throw new Error('google.picker: setOAuthToken is required (the emulator has no sign-in)');
      const overlay = document.createElement('div');
      overlay.setAttribute('role', 'dialog');
      overlay.setAttribute('aria-label', 'Google Picker');
      Object.assign(overlay.style, {
        position: 'fixed',
        inset: '0',
        background: 'rgba(0,0,0,0.4)',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        zIndex: '2147483647',
      });
      const frame = document.createElement('iframe');
      frame.title = 'Google Picker';
      frame.src = `${origin}/picker`;
      Object.assign(frame.style, {
        width: '600px',
        maxWidth: '95vw',
        height: '420px',
        border: '0',
        background: '#fff',
      });
      const drives =
        this.config.features.has(Feature.SUPPORT_DRIVES) ||
        this.config.views.some((view) => view.enableDrives);
      frame.addEventListener('load', () => {
        // The token goes to the emulator's origin only.
        frame.contentWindow.postMessage(
          {
            type: 'emulator-picker-init',
            token: this.config.token,
            drives,
            multiselect: this.config.features.has(Feature.MULTISELECT_ENABLED),
          },
          origin,
        );
      });
      this.listener = (event) => {
        if (event.origin !== origin || event.source !== frame.contentWindow) return;
        const message = event.data;
        if (message?.type !== 'emulator-picker-result') return;
        const data = message.data;
        if (data.action !== Action.LOADED) this.close();
        if (this.config.callback) this.config.callback(data);
      };
      window.addEventListener('message', this.listener);
      overlay.append(frame);
      document.body.append(overlay);
      this.overlay = overlay;
    }
    close() {
      if (!this.overlay) return;
      window.removeEventListener('message', this.listener);
      this.overlay.remove();
      this.overlay = null;
    }
    dispose() {
      this.close();
    }
  }

  class PickerBuilder {
    constructor() {
      this.config = {
        views: [],
        features: new Set(),
        token: null,
        callback: null,
        developerKey: null,
        appId: null,
      };
    }
    addView(view) {
      this.config.views.push(typeof view === 'string' ? new DocsView(view) : view);
      return this;
    }
    setOAuthToken(token) {
      this.config.token = token;
      return this;
    }
    setDeveloperKey(key) {
      this.config.developerKey = key;
      return this;
    }
    setAppId(appId) {
      this.config.appId = appId;
      return this;
    }
    setCallback(callback) {
      this.config.callback = callback;
      return this;
    }
    enableFeature(feature) {
      this.config.features.add(feature);
      return this;
    }
    disableFeature(feature) {
      this.config.features.delete(feature);
      return this;
    }
    setTitle() {
      return this;
    }
    setOrigin() {
      return this;
    }
    setLocale() {
      return this;
    }
    setSize() {
      return this;
    }
    setMaxItems() {
      return this;
    }
    build() {
      return new Picker(this.config);
    }
  }

  window.google = window.google || {};
  window.google.picker = { PickerBuilder, DocsView, ViewId, Feature, Action, Response, Document };
  window.gapi = window.gapi || {};
  window.gapi.load = (_names, options) => {
    const callback = typeof options === 'function' ? options : options?.callback;
    if (callback) setTimeout(callback, 0);
  };
})();
