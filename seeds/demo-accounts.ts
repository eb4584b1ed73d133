/** Demo logins created by the development seed (never in production) and printed by `npm start`. */
export const DEMO_ACCOUNTS = [
  {
    label: 'Administrador',
    role: 'admin' as const,
    name: 'Administrador Demo',
    email: 'admin@cotaverde.dev',
    password: 'admin12345',
    cpf: '52998224725',
    phone: '41999990000',
    birthdate: '1985-03-10',
  },
  {
    label: 'Cliente',
    role: 'customer' as const,
    name: 'Maria Cliente Demo',
    email: 'cliente@cotaverde.dev',
    password: 'cliente12345',
    cpf: '11144477735',
    phone: '41988887777',
    birthdate: '1992-07-21',
  },
];
