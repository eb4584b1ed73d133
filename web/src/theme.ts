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
  /** Errors and destructive actions: the dark algorithm derives #dc7274 from it, 5.2:1 on the surfaces; filled buttons carry dark text on it. */
  red: '#ff8385',
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
    // WCAG AA (4.5:1) for every text antd paints on the dark surfaces: its derived link hover
    // (#226a42), secondary/description text (45 % white), placeholders (25 % white) and error red
    // (#dc4446) fall short on #0d1a13; these values reach 5:1 or more (tests/web/contrast.test.ts).
    colorLinkHover: '#6ee3a1',
    colorLinkActive: '#6ee3a1',
    colorTextTertiary: 'rgba(255, 255, 255, 0.6)',
    colorTextQuaternary: 'rgba(255, 255, 255, 0.5)',
    colorError: COLORS.red,
    colorBgBase: COLORS.bg,
    colorBgLayout: COLORS.bg,
    colorBgContainer: COLORS.surface,
    colorBgElevated: COLORS.surfaceRaised,
    borderRadius: 10,
    fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
  },
  components: {
    // Filled danger buttons: dark text on the bright red (6.5:1); white on it would be 3:1.
    // Hovered/pressed default buttons write in antd's colorPrimaryHover (#2e804e, 3.7:1 on the
    // surface): the bright green instead.
    Button: {
      fontWeight: 600,
      dangerColor: '#1f0505',
      defaultHoverColor: COLORS.greenBright,
      defaultActiveColor: COLORS.greenBright,
      defaultHoverBorderColor: COLORS.greenBright,
      defaultActiveBorderColor: COLORS.greenBright,
    },
    Card: { colorBorderSecondary: COLORS.border },
    // A focused field shows it plainly: antd's default (the primary green) barely differs from its resting border.
    Input: { activeBorderColor: COLORS.greenBright },
    // A switch's 'off' track is painted with the tertiary/quaternary text colours, which the
    // tokens above lighten for text: kept dark here so its white label stays above 4.5:1.
    // A 'processing' tag writes in colorInfo, the dark primary green (2.9:1): the bright green instead.
    Tag: { colorInfo: COLORS.greenBright },
    Switch: { colorTextQuaternary: 'rgba(255, 255, 255, 0.25)', colorTextTertiary: 'rgba(255, 255, 255, 0.3)' },
    InputNumber: { activeBorderColor: COLORS.greenBright },
  },
};
