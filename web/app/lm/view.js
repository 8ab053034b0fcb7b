// "Your model, past its context": a real language model (loaded from the reader's files or fetched by the reader's
// browser) run over a passage longer than its context, with no scaling and with PI, dynamic NTK, YaRN and Llama 3
// side by side (perplexity by position), the chosen scaling's attention per head, and attention entropy and
// first-token mass against length. This module only wires a controller (controller.js: loading, settings, the run
// loop, the Workers) to two views (source-view.js: where the model comes from; model-view.js: its facts, controls
// and figures). Used by the page's section and by <posenc-explorer view="model">.
import { createLmController, LM_KEYS } from './controller.js';
import { createSourceView } from './source-view.js';
import { createModelView } from './model-view.js';
import { adoptLmStyles } from './styles.js';

export { LM_KEYS };

/**
 * Builds the view into `host` (an element, empty). `state`: the page's state object (its lm* keys and modelUrl are
 * read and written here); `onChange()`: the state changed (save the URL); `api()`: the page's posenc API, used only
 * when no Worker can start; `styleRoot`: where the view's stylesheet goes (the document or a shadow root).
 */
export function createLmView(host, { state, onChange = () => {}, api, styleRoot = document, onNotice = () => {} }) {
  adoptLmStyles(styleRoot);
  host.classList.add('lm');
  let ctl = null; // (the views' handlers run only after the controller exists)
  const sourceView = createSourceView({
    onUrls: (urls) => ctl.loadUrls(urls),
    onFiles: (files) => ctl.loadFiles(files),
    onCancel: () => ctl.cancelLoad(),
  });
  const modelView = createModelView({
    onSetting: (key, value) => ctl.set(key, value),
    onContext: (text) => ctl.setContext(text),
    onConfirm: (text) => ctl.confirmContext(text),
    onText: (text) => ctl.useText(text),
    onTextError: (message) => sourceView.showError(message),
    onOther: () => {
      ctl.cancel();
      sourceView.source.hidden = false;
      sourceView.focus();
    },
    onCancel: () => ctl.cancel({ redraw: true }),
  });
  host.append(sourceView.source, sourceView.loading, sourceView.error, modelView.model);

  ctl = createLmController({ state, onChange, api, onNotice, ui: {
    error: sourceView.showError,
    loading: sourceView.showLoading,
    families: sourceView.families,
    showModel() {
      sourceView.source.hidden = true;
      modelView.showModel(ctl.model());
    },
    showSource() {
      modelView.model.hidden = true;
      sourceView.source.hidden = false;
    },
    modelShown: () => !modelView.model.hidden,
    syncControls: modelView.syncControls,
    busy: modelView.busy,
    progress: modelView.progress,
    memory: modelView.memory,
    figure: modelView.figure,
    mark: (key, value) => { host.dataset[key] = value; },
  } });

  // ---------- start: a model named in the state is fetched once the view is on screen ----------
  sourceView.urls = state.modelUrl;
  let started = false;
  const observer = new IntersectionObserver((entries) => {
    if (started || !entries.some((e) => e.isIntersecting)) return;
    started = true;
    observer.disconnect();
    if (state.modelUrl.length) ctl.loadUrls(state.modelUrl, { keepContext: true });
  });
  observer.observe(host);

  return {
    /** Redraw (after a resize or a theme change). */
    draw: ctl.draw,
    loadUrls: ctl.loadUrls,
    loadFiles: ctl.loadFiles,
    setSettings: ctl.setSettings,
    data: ctl.data,
    memoryLeft: ctl.memoryLeft,
    destroy() {
      observer.disconnect();
      ctl.destroy();
    },
  };
}
