/**
 * Screen-reader texts antd writes in English whatever its locale (issue 26), put right in the page
 * as antd renders them:
 * - the step buttons of InputNumber: @rc-component/input-number's StepHandler hard-codes
 *   aria-label "Increase Value" / "Decrease Value" (neither the pt_BR locale nor the `controls`
 *   icons change it: the label sits on the button around the icon) → "Aumentar valor" / "Diminuir valor";
 * - every @ant-design/icons icon: a span role="img" named after the icon in English ("mail",
 *   "user-add", "close-circle"), which a screen reader reads inside the button or link around it
 *   ("user-add Criar conta"). An icon still carrying its default name (aria-label = the icon's
 *   name, class anticon-<name>) is decoration next to a text: it is hidden from screen readers.
 *   Two exceptions: Input.Password's eye, which shows or hides the password, is named in Portuguese;
 *   an icon that is the only content of an unnamed control (an input's clear "×", Input.Search's
 *   button) names it in Portuguese (ONLY_NAME), or else keeps its name so that the control is not
 *   left without one (tests/e2e/copy.e2e.test.ts then reports it, for the control to get a name);
 * - recharts' legend swatches ("Vendas legend icon"), decoration beside the legend's text: hidden.
 * One observer over the document, started by the app layout (AppLayout) and kept while any user
 * needs it, covers the store (whose icons render outside antd's scope), the console and dialogs in
 * portals, and any page added later, without each page wrapping its icons and number fields. React
 * writes these attributes when it creates the element and not again while its props stay the same,
 * so the rewrite holds. tests/e2e/copy.e2e.test.ts walks the store and the console and fails on any
 * English label left.
 */
export const PORTUGUESE_LABELS: Readonly<Record<string, string>> = {
  'Increase Value': 'Aumentar valor',
  'Decrease Value': 'Diminuir valor',
};

/** Icons that act (not decoration): their Portuguese name, where they are. */
const ACTING_ICONS: ReadonlyArray<{ selector: string; label: string }> = [
  { selector: '.ant-input-password-icon.anticon-eye-invisible', label: 'Mostrar senha' },
  { selector: '.ant-input-password-icon.anticon-eye', label: 'Ocultar senha' },
];

/**
 * The name of a control antd draws with nothing but an icon (an input's clear "×", Input.Search's
 * button, the tabs' "more" button), in Portuguese, by the icon's name.
 */
const ONLY_NAME: Readonly<Record<string, string>> = {
  'close-circle': 'Limpar',
  close: 'Fechar',
  search: 'Buscar',
  ellipsis: 'Mais opções',
  left: 'Anterior',
  right: 'Próximo',
  'double-left': 'Páginas anteriores',
  'double-right': 'Próximas páginas',
  plus: 'Adicionar',
  delete: 'Excluir',
  edit: 'Editar',
  reload: 'Recarregar',
  copy: 'Copiar',
  download: 'Baixar',
};

/** A chart legend's swatch (recharts writes "Vendas legend icon"): decoration beside the legend's text. */
const LEGEND_ICON = / legend icon$/;

const CONTROL = 'button, a[href], [role="button"], [role="link"], [role="menuitem"], [role="tab"]';
const SELECTOR = [
  ...Object.keys(PORTUGUESE_LABELS).map((en) => `[aria-label="${en}"]`),
  'span.anticon[role="img"][aria-label]',
  'svg[aria-label$=" legend icon"]',
].join(',');

/** A control named by nothing but this icon (no label of its own, no text). */
function onlyNameOf(icon: Element): boolean {
  const control = icon.closest(CONTROL);
  if (!control) return false;
  if (control.getAttribute('aria-label') || control.getAttribute('aria-labelledby') || control.getAttribute('title')) return false;
  return (control.textContent ?? '').trim() === '';
}

function relabelOne(el: Element): void {
  const label = el.getAttribute('aria-label');
  if (!label) return;
  const pt = PORTUGUESE_LABELS[label];
  if (pt) {
    el.setAttribute('aria-label', pt);
    return;
  }
  if (LEGEND_ICON.test(label)) {
    el.removeAttribute('aria-label');
    el.setAttribute('aria-hidden', 'true');
    return;
  }
  // An icon with antd's default (English) name.
  if (!el.classList.contains('anticon') || el.getAttribute('role') !== 'img' || !el.classList.contains(`anticon-${label}`)) return;
  const acting = ACTING_ICONS.find((a) => el.matches(a.selector));
  if (acting) el.setAttribute('aria-label', acting.label);
  else if (onlyNameOf(el)) {
    if (ONLY_NAME[label]) el.setAttribute('aria-label', ONLY_NAME[label]);
  } else {
    el.removeAttribute('aria-label');
    el.removeAttribute('role');
    el.setAttribute('aria-hidden', 'true');
  }
}

/** The element and everything under it. */
function relabel(root: Element | Document): void {
  if (root instanceof Element && root.matches(SELECTOR)) relabelOne(root);
  for (const el of root.querySelectorAll(SELECTOR)) relabelOne(el);
}

let users = 0;
let observer: MutationObserver | null = null;

/** Starts the rewrite (once for the whole document, however many callers); the returned function stops it. */
export function startPortugueseLabels(): () => void {
  users += 1;
  if (!observer) {
    relabel(document);
    observer = new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes') relabelOne(r.target as Element);
        else for (const n of r.addedNodes) if (n instanceof Element) relabel(n);
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
  }
  return () => {
    users -= 1;
    if (users === 0 && observer) {
      observer.disconnect();
      observer = null;
    }
  };
}
