import { theme, type ThemeConfig } from 'antd';

/**
 * Brand palette: dark background, green primary, amber secondary (prices, accents).
 * `green` is the seed of antd's primary: under the dark algorithm it becomes #17703c (hover
 * #2e804e), dark enough for white button text to pass WCAG AA (tests/web/contrast.test.ts).
 */
export const COLORS = {
  green: '#188043',
  greenBright: '#34d27b',
  amber: '#f5a623',
  amberSoft: 'rgba(245, 166, 35, 0.14)',
  bg: '#07110c',
  surface: '#0d1a13',
  surfaceRaised: '#12241a',
  border: 'rgba(52, 210, 123, 0.16)',
} as const;

export const appTheme: ThemeConfig = {
  algorithm: theme.darkAlgorithm,
  token: {
    colorPrimary: COLORS.green,
    colorInfo: COLORS.green,
    colorWarning: COLORS.amber,
    colorLink: COLORS.greenBright,
    colorBgBase: COLORS.bg,
    colorBgLayout: COLORS.bg,
    colorBgContainer: COLORS.surface,
    colorBgElevated: COLORS.surfaceRaised,
    borderRadius: 10,
    fontFamily:
      "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
  },
  components: {
    Button: { fontWeight: 600 },
    Card: { colorBorderSecondary: COLORS.border },
    // A focused field shows it plainly: antd's default (the primary green) barely differs from its resting border.
    Input: { activeBorderColor: COLORS.greenBright },
    InputNumber: { activeBorderColor: COLORS.greenBright },
  },
};
