// The model view's source panel (DOM only): the suggested public models, an address field, a drop zone for the
// reader's files, the loading line and the error line. What the reader does goes to the handlers given.
import { SUGGESTED } from './sources.js';

export function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children.filter((c) => c != null));
  return e;
}

/**
 * `onUrls(urls)`: addresses to load (a suggestion or the field); `onFiles(fileList)`: picked or dropped files;
 * `onCancel()`: the loading's Cancel. Returns the parts the view places and shows.
 */
export function createSourceView({ onUrls, onFiles, onCancel }) {
  const urlInput = el('input', { type: 'text', name: 'lm-url', spellcheck: false, autocomplete: 'off',
    placeholder: 'https://huggingface.co/… (a .gguf, a .bin and its tokenizer, or a repository)' });
  urlInput.setAttribute('aria-label', 'model file addresses, separated by spaces');
  const urlForm = el('form', { className: 'lm-url' }, urlInput, el('button', { type: 'submit', textContent: 'Load' }));
  const fileInput = el('input', { type: 'file', multiple: true, className: 'lm-file' });
  const pickLabel = el('label', {}, 'choose files', fileInput);
  const drop = el('div', { className: 'lm-drop', tabIndex: 0 }, 'Drop the model\'s files here, or ', pickLabel,
    ' (a .gguf; a llama2.c .bin with its tokenizer.bin; or .safetensors with config.json and tokenizer.json). They stay on this computer.');
  const suggested = el('ul', { className: 'lm-suggested' }, ...SUGGESTED.map((m) => {
    const b = el('button', { type: 'button', textContent: m.name });
    b.addEventListener('click', () => {
      urlInput.value = m.urls.join(' ');
      onUrls(m.urls);
    });
    return el('li', {}, b, el('span', { className: 'what', textContent: m.what }), el('code', { textContent: m.urls.join(' ') }));
  }));
  const loadBar = el('progress', { max: 1, value: 0 });
  const loadText = el('span', { className: 'lm-load-text' });
  const loadCancel = el('button', { type: 'button', textContent: 'Cancel', className: 'lm-load-cancel' });
  const loading = el('div', { className: 'lm-row lm-loading', hidden: true }, loadBar, loadText, loadCancel);
  loading.setAttribute('role', 'status');
  const error = el('p', { className: 'lm-error', hidden: true });
  error.setAttribute('role', 'alert');
  const familyList = el('span', { className: 'lm-families' }); // the core's family table's labels, once its Worker answers
  const source = el('div', { className: 'lm-source' },
    el('p', {}, 'Load a language model', familyList, ': pick a public one, give the addresses of its files, or drop the files. ' +
      'Your browser fetches or reads them; nothing is uploaded anywhere.'),
    suggested, urlForm, drop);

  loadCancel.addEventListener('click', () => onCancel());
  urlForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    onUrls(urlInput.value.split(/\s+/));
  });
  fileInput.addEventListener('change', () => fileInput.files.length && onFiles(fileInput.files));
  drop.addEventListener('dragover', (ev) => {
    ev.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    if (ev.dataTransfer?.files?.length) onFiles(ev.dataTransfer.files);
  });
  drop.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      fileInput.click();
    }
  });

  return {
    source, loading, error,
    set urls(urls) { urlInput.value = urls.join(' '); },
    focus: () => urlInput.focus(),
    families(labels) {
      familyList.textContent = ` of a family posenc runs (${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]})`;
    },
    showError(msg) {
      error.textContent = msg;
      error.hidden = !msg;
    },
    /** `progress`: {text, loaded, total} (no total: a bar that only says it is busy), or null when done. */
    showLoading(progress) {
      loading.hidden = !progress;
      if (!progress) {
        loadText.textContent = '';
        return;
      }
      const { text, loaded, total } = progress;
      if (total) {
        loadBar.max = total;
        loadBar.value = loaded;
      } else loadBar.removeAttribute('value');
      loadText.textContent = text;
    },
  };
}
