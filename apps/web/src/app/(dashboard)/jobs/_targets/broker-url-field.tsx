'use client';
// The broker URL field of the amqp and nats editors: the URL carries the login, and a stored
// password reads back as *** (kept as it is when *** is sent back).
import { TextField } from '@/components/form-fields';
import { hasMaskedPassword } from './kind';

export function BrokerUrlField({
  value,
  onChange,
  errors,
  placeholder,
  hint,
}: {
  value: string;
  onChange: (url: string) => void;
  errors: string[];
  placeholder: string;
  hint: string;
}) {
  return (
    <TextField
      label="Broker URL"
      hint={
        hasMaskedPassword(value)
          ? 'The stored password is shown as ***; leave it to keep the password, or type a new one.'
          : hint
      }
      errors={errors}
      fieldClassName="min-w-[20rem] flex-1"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      placeholder={placeholder}
      className="font-mono"
      spellCheck={false}
      autoComplete="off"
    />
  );
}
