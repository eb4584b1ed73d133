/** Keyboard moves on the number board (the ARIA grid pattern), as a pure function. */

export const BOARD_COLUMNS = 10;

/**
 * Where a key moves the focus on the board (the ARIA grid pattern's keys): arrows by one cell or
 * one row, Home/End to the row's ends, Ctrl+Home/End to the first and last number. Null: the key
 * is not a move (the caller lets it through).
 */
export function moveFocus(from: number, key: string, total: number, ctrl = false, cols = BOARD_COLUMNS): number | null {
  const rowStart = from - (from % cols);
  let to: number;
  switch (key) {
    case 'ArrowRight':
      to = from + 1;
      break;
    case 'ArrowLeft':
      to = from - 1;
      break;
    case 'ArrowDown':
      to = from + cols;
      break;
    case 'ArrowUp':
      to = from - cols;
      break;
    case 'Home':
      to = ctrl ? 0 : rowStart;
      break;
    case 'End':
      to = ctrl ? total - 1 : Math.min(total - 1, rowStart + cols - 1);
      break;
    case 'PageUp':
      to = from % cols;
      break;
    case 'PageDown':
      to = Math.min(total - 1, (Math.ceil(total / cols) - 1) * cols + (from % cols));
      break;
    default:
      return null;
  }
  return to < 0 || to >= total ? from : to;
}
