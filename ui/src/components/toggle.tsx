// An on/off switch (role="switch") for enabled states; Space and Enter toggle it like any button.

interface ToggleProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: string;
  disabled?: boolean;
  /** Text beside the switch; defaults to On/Off. */
  stateText?: [on: string, off: string];
}

export function Toggle({ checked, onChange, label, disabled, stateText = ['On', 'Off'] }: ToggleProps) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      className={`toggle${checked ? ' toggle-on' : ''}`}
      disabled={disabled}
      onClick={() => onChange(!checked)}
    >
      <span className="toggle-track" aria-hidden="true">
        <span className="toggle-thumb" />
      </span>
      <span className="toggle-text">{checked ? stateText[0] : stateText[1]}</span>
    </button>
  );
}
