/**
 * Hero artwork, drawn inline (no external image): an e-book whose cover is the 10x10 number board,
 * with a few numbers taken, the reader's picks highlighted and a ticket with the chosen number.
 */
const TAKEN = new Set([3, 8, 12, 17, 21, 26, 30, 34, 39, 45, 48, 52, 56, 61, 63, 67, 70, 74, 79, 83, 88, 91, 95, 99]);
const PICKED = new Set([7, 42, 77]);

export function HeroIllustration() {
  const cells = [];
  for (let n = 0; n < 100; n++) {
    const x = 58 + (n % 10) * 19;
    const y = 96 + Math.floor(n / 10) * 19;
    const fill = PICKED.has(n) ? '#f5a623' : TAKEN.has(n) ? '#1f9d55' : 'rgba(255,255,255,0.07)';
    cells.push(<rect key={n} x={x} y={y} width={15} height={15} rx={3.5} fill={fill} />);
  }
  return (
    <svg
      className="hero-art"
      viewBox="0 0 340 340"
      role="img"
      aria-label="Ilustração: e-book com a tabela de 100 números e um bilhete com o número escolhido"
    >
      <defs>
        <radialGradient id="hero-glow" cx="50%" cy="45%" r="55%">
          <stop offset="0%" stopColor="#1f9d55" stopOpacity="0.45" />
          <stop offset="100%" stopColor="#1f9d55" stopOpacity="0" />
        </radialGradient>
        <linearGradient id="hero-cover" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0%" stopColor="#123322" />
          <stop offset="100%" stopColor="#0a1d13" />
        </linearGradient>
        <linearGradient id="hero-ticket" x1="0" y1="0" x2="1" y2="0">
          <stop offset="0%" stopColor="#f7b844" />
          <stop offset="100%" stopColor="#e8930f" />
        </linearGradient>
      </defs>
      <circle cx="170" cy="160" r="160" fill="url(#hero-glow)" />

      {/* the e-book: pages behind, cover in front */}
      <g transform="rotate(-6 170 170)">
        <rect x="52" y="40" width="212" height="268" rx="14" fill="#e9f5ee" opacity="0.9" />
        <rect x="44" y="34" width="212" height="268" rx="14" fill="url(#hero-cover)" stroke="#2f6b47" strokeWidth="2" />
        <rect x="44" y="34" width="14" height="268" rx="7" fill="#0a1a11" />
        <text x="68" y="66" fill="#34d27b" fontSize="13" fontWeight="700" letterSpacing="2" fontFamily="system-ui, sans-serif">
          LOTOMANIA
        </text>
        <text x="68" y="84" fill="rgba(255,255,255,0.7)" fontSize="10" fontFamily="system-ui, sans-serif">
          e-book · 100 números
        </text>
        {cells}
      </g>

      {/* the ticket with the chosen number */}
      <g transform="rotate(8 262 262)">
        <path
          d="M206 236h112a8 8 0 0 1 8 8v12a10 10 0 0 0 0 20v12a8 8 0 0 1-8 8H206a8 8 0 0 1-8-8v-12a10 10 0 0 0 0-20v-12a8 8 0 0 1 8-8z"
          fill="url(#hero-ticket)"
        />
        <line x1="236" y1="242" x2="236" y2="290" stroke="#7a4a00" strokeDasharray="4 4" strokeWidth="1.5" />
        <text
          x="217"
          y="271"
          fill="#3b2300"
          fontSize="11"
          fontWeight="700"
          fontFamily="system-ui, sans-serif"
          transform="rotate(-90 217 266)"
        >
          Nº
        </text>
        <text x="280" y="279" fill="#2a1800" fontSize="34" fontWeight="800" textAnchor="middle" fontFamily="system-ui, sans-serif">
          07
        </text>
      </g>

      {/* sparkles */}
      <g fill="#f5a623">
        <path d="M292 54l4 10 10 4-10 4-4 10-4-10-10-4 10-4z" />
        <path d="M30 236l3 7 7 3-7 3-3 7-3-7-7-3 7-3z" opacity="0.8" />
      </g>
      <circle cx="300" cy="150" r="4" fill="#34d27b" />
      <circle cx="24" cy="120" r="3" fill="#34d27b" opacity="0.7" />
    </svg>
  );
}
