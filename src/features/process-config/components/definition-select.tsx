import { EnumSelect } from '../../../components/enum-select';
import type { FieldInputProps } from '../../../list-screen/types';
import { useProcessDefinitions } from '../api';
import { ChainLine } from './chain-line';
import './process-config.css';

/** The process form's definition: one of the live definitions, with its chain shown under the choice. */
export function DefinitionSelect({ value, onChange, placeholder, disabled }: FieldInputProps) {
  const { data = [], isLoading } = useProcessDefinitions();
  const options = data.map((d) => ({ value: d.process_definition_id, label: d.name }));
  const picked = data.find((d) => d.process_definition_id === Number(value));
  return (
    <div className="pc-defsel">
      <EnumSelect aria-label="流程定义" value={value} onChange={onChange} options={options} placeholder={isLoading ? '加载中…' : placeholder} disabled={disabled} />
      {picked && (
        <div className="pc-defsel__chain">
          <ChainLine names={picked.definitionNodeList.map((n) => n.name)} compact />
        </div>
      )}
    </div>
  );
}
