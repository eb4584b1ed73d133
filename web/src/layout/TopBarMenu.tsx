import { useEffect, useState } from 'react';
import { Dropdown } from 'antd';
import AntdScope from '../antd/AntdScope';
import { MenuTrigger } from './MenuTrigger';
import type { Item } from './TopBar';

/**
 * The top bar's menu on phones (antd Dropdown), a chunk of its own: loaded on the first tap of the
 * menu button, which it then opens at once (`openAtStart`).
 */
export default function TopBarMenu({
  items,
  onSelect,
  busy,
  openAtStart,
  onLoaded,
}: {
  items: Item[];
  onSelect(key: string): void;
  busy: boolean;
  openAtStart: boolean;
  onLoaded(): void;
}) {
  const [open, setOpen] = useState(openAtStart);
  useEffect(() => {
    onLoaded();
  }, [onLoaded]);
  return (
    <AntdScope island>
      <Dropdown
        menu={{
          items: items.map((i) => ({ key: i.key, icon: i.icon, label: i.label, danger: i.key === 'sair' })),
          onClick: ({ key }) => {
            setOpen(false);
            onSelect(key);
          },
        }}
        trigger={['click']}
        placement="bottomRight"
        open={open}
        onOpenChange={setOpen}
      >
        <MenuTrigger busy={busy} />
      </Dropdown>
    </AntdScope>
  );
}
