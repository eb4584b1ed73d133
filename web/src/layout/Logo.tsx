import { Link } from 'react-router-dom';

/** The brand mark: a leaf and an amber number ball. */
export function LogoMark({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true" focusable="false">
      <rect width="64" height="64" rx="14" fill="#0f2a1c" />
      <path d="M14 40c0-14 10-24 26-26 4 0 8 1 10 2-2 16-12 28-26 28-4 0-7-1-10-4z" fill="#22c55e" />
      <path d="M18 44c6-8 14-15 24-20" stroke="#0f2a1c" strokeWidth="3" strokeLinecap="round" fill="none" />
      <circle cx="46" cy="44" r="8" fill="#f5a623" />
      <text x="46" y="47.5" fontFamily="Arial, sans-serif" fontSize="9" fontWeight="700" textAnchor="middle" fill="#1f1300">
        7
      </text>
    </svg>
  );
}

export function Logo({ to }: { to: string }) {
  return (
    // Its name is its visible text (WCAG 2.5.3, label in name): 'Cota Verde', with a real space.
    <Link to={to} className="logo">
      <LogoMark />
      <span className="logo-text">
        Cota <span className="logo-accent">Verde</span>
      </span>
    </Link>
  );
}
