import { ListScreen } from '../../../list-screen';
import { carHistoryScreen } from './history-screens';

export default function CarHistoryPage() {
  return <ListScreen def={carHistoryScreen} />;
}
