// The default passage of "Your model, past its context": a story written for the project (the same text as
// tests/lm/story.txt, where the language-model tests read it), in the plain words of the small story models it suits.
export const PASSAGE = `Once upon a time, there was a little girl named Mia. Mia lived in a small house near a big green hill. She had a red ball and a little dog named Pip. Every morning, Mia and Pip went out to play in the garden. The sun was warm and the flowers were bright.

One day, Mia threw her red ball very high. The ball went up, up, up into the sky. Then it came down and rolled far away, down the hill. Pip barked and ran after it. Mia ran too. "Wait for me, Pip!" she said.

At the bottom of the hill, there was a little pond. The ball was floating on the water. Pip looked at the ball. Mia looked at the ball. "How can we get it back?" Mia asked. Pip wagged his tail. He did not know.

A big frog sat on a rock near the pond. The frog said, "Hello! Is that your ball?" Mia was surprised. She had never met a talking frog before. "Yes, it is my ball," she said. "Can you help me get it?"

The frog smiled. "I can help you," he said. He jumped into the water with a big splash. He swam to the ball and pushed it with his nose. The ball rolled back to the side of the pond. Mia picked it up. It was wet, but it was fine.

"Thank you, frog!" said Mia. "You are very kind." The frog was happy. "You are welcome," he said. "Come back and play with me again." Mia and Pip said goodbye and walked back up the hill. They were tired, but they were happy. That night, Mia dreamed about the kind frog and the little pond.

The next day, Mia told her mom about the frog. Her mom laughed. "A talking frog? What a big imagination you have," she said. Mia smiled. She knew the frog was real. After lunch, she took some bread and went back to the pond with Pip.

The frog was there, sitting on the same rock. "Hello again!" he said. Mia gave him a small piece of bread. The frog did not eat bread, but he said thank you anyway. Then he showed Mia the fish in the pond. There were little orange fish and big gray fish. The fish swam in circles and made tiny bubbles.

Mia and Pip played by the pond all afternoon. They made boats out of leaves and watched them float. When the sun went down, the sky turned pink and orange. Mia said goodbye to the frog and went home. She was happy to have a new friend.

Once upon a time, in a big forest, there lived a little bear named Ben. Ben loved honey more than anything. Every day, he looked for honey in the trees. But the bees did not like it when Ben took their honey. They buzzed and buzzed at him.

One morning, Ben woke up very hungry. He walked to the tallest tree in the forest. At the top of the tree, there was a big bee house full of honey. Ben started to climb. He climbed higher and higher. The bees saw him and got angry.

"Stop, Ben!" said a little bee. "That honey is for our babies. If you take it, they will be hungry." Ben stopped. He did not want the baby bees to be hungry. He felt sad. "I am sorry," he said. "I did not think about your babies."

The little bee was surprised. Most bears did not say sorry. "Thank you for listening," she said. "If you help us, we will share some honey with you." Ben was very happy. "What can I do to help?" he asked.

The bee told Ben that a big branch had fallen on their flowers. The bees could not get to the flowers to make honey. Ben went to the field and lifted the heavy branch. He was strong, and he moved it away. Now the bees could fly to the flowers again.

The bees were so happy. They gave Ben a big pot of honey. Ben ate the honey slowly and smiled. It was the best honey he had ever eaten, because he had shared and helped his friends. From that day on, Ben and the bees were good friends. Ben helped them, and they shared their honey with him.

Once upon a time, there was a small boat named Sam. Sam lived by the sea with his friend, an old fisherman named Tom. Every day, Tom and Sam went out on the water to catch fish. Sam liked the waves. They made him go up and down, up and down.

One day, the sky was dark and the wind was strong. Tom looked at the clouds. "A storm is coming," he said. "We should go home." But Sam wanted to stay. He wanted to see the big waves. Tom shook his head. "It is not safe, Sam."

The rain began to fall. The waves got bigger and bigger. Sam was scared now. "Tom, I want to go home!" he said. Tom held the rope tight and turned Sam toward the shore. The wind pushed them, and the water splashed over the side.

Then Sam saw a light. It was the lighthouse on the rocks. The light was bright and yellow. It showed them the way home. Tom steered Sam past the rocks and into the little harbor. They were safe at last.

The next morning, the sun came out. The sea was calm and blue again. Sam said, "Thank you, Tom. I should have listened to you." Tom patted Sam and smiled. "It is okay. We both learned something. Now let us go and catch some fish." And they did.

Once upon a time, there was a girl named Lily who had a big box of crayons. She loved to draw. She drew the sun, the trees, her cat, and her house. One day, her friend Tim came to play. Tim saw the crayons and wanted to use them too.

"Can I use your crayons?" Tim asked. Lily did not want to share. She held the box close. "No, they are mine," she said. Tim was sad. He sat down on the floor and did not say anything. Lily looked at him. She did not feel happy.

Lily thought for a moment. She remembered when her mom shared her cake with her. It made her feel warm inside. So she opened the box and gave Tim the blue crayon and the green crayon. "Here," she said. "We can draw together."

Tim smiled a big smile. He drew a blue sky and a green tree. Lily drew a yellow sun over his tree. Together they made a big picture with a house, a dog, and a rainbow. It was the best picture Lily had ever made.

When Tim went home, Lily put the picture on the wall. Her mom saw it and said, "What a beautiful picture! Who made it?" Lily smiled. "Tim and I made it together," she said. "Sharing is fun." Her mom gave her a big hug.

Once upon a time, there was a little bird named Kiki. Kiki lived in a nest high in an old tree. She had two brothers and one sister. They were all learning to fly. Every day, their mother showed them how to flap their wings.

Kiki was scared to fly. She looked down at the ground and it looked very far away. Her brothers jumped from the nest and flew around the tree. Her sister flew to the next tree and back. But Kiki stayed in the nest. "I can not do it," she said.

Her mother sat next to her. "You do not have to fly far," she said. "Just try to go to that little branch." Kiki looked at the branch. It was not very far. She took a deep breath, opened her wings, and jumped.

For a moment, Kiki fell. Then she flapped her wings hard, and she went up! She landed on the little branch. "I did it!" she said. Her mother was proud. Her brothers and her sister cheered. Kiki felt brave and strong.

The next day, Kiki flew to the next tree. The day after that, she flew all the way to the river. She saw the water shine in the sun. She saw fish jump and ducks swim. Kiki was happy that she had tried. Now she could go anywhere she wanted.

Once upon a time, there was a boy named Max who found a shiny key in the park. The key was gold and very small. Max wondered what it could open. He looked at the trees, the benches, and the slide. There was no lock anywhere.

Max took the key home and showed it to his grandpa. Grandpa looked at the key for a long time. Then he laughed. "I know this key," he said. "It opens my old music box. I lost it many years ago." Max was amazed.

Grandpa went to the attic and came back with a dusty wooden box. Max put the little key in the lock and turned it. Click! The box opened. Inside, a tiny dancer began to spin, and a sweet song began to play. Max and Grandpa listened quietly.

"This song was my mother's favorite," Grandpa said. His eyes were wet, but he was smiling. "Thank you, Max. You found something very special." Max gave his grandpa a hug. That night, they played the music box again and again, and Grandpa told Max stories about when he was a little boy.

Once upon a time, there was a little cat named Tom who did not like the rain. When it rained, he sat by the window and looked sad. He wanted to go outside and chase the leaves, but the rain made his fur wet and cold.

One rainy day, a little girl named Sue came to the window. She had a yellow coat and yellow boots. She jumped in a big puddle and laughed. Tom watched her. She was wet, but she was having fun. Tom did not understand.

Sue saw Tom and came inside. She dried her boots and picked him up. "Do you want to see the rain with me?" she asked. She took a small umbrella and carried Tom to the door. The rain fell on the umbrella with a soft sound. Tom listened. It sounded like a song.

Tom looked at the puddles. He saw the sky in them. He saw the trees in them. He saw his own face in them. The rain was not so bad after all. When the sun came out again, there was a big rainbow over the garden. Sue and Tom looked at it together, and Tom purred.
`;
