import { ListScreen } from '../../../list-screen';
import { carAllHistoryScreen } from './history-screens';

export default function CarAllHistoryPage() {
  return <ListScreen def={carAllHistoryScreen} />;
}
